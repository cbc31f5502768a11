// Rendering of builtin templates (docs/codegen.md): every `{{key}}`
// is replaced by its value, textually, with no escaping and no conditionals.
// Shared by compiler/codegen (the HOST and CHIP rails) and the runtime's
// build-time rendering, so both rails produce byte-identical kernels.
#ifndef PTO_COMMON_TEMPLATE_RENDER_H_
#define PTO_COMMON_TEMPLATE_RENDER_H_

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace pto {

using TemplateVars = std::map<std::string, std::string, std::less<>>;

// Replaces every `{{key}}` of `text` with vars[key]. A key must be a
// non-empty run of [A-Za-z0-9_]. InvalidArgument names the line of the first
// placeholder whose key is missing from `vars` or malformed (a `{{` with no
// closing `}}`, or an empty or non-identifier key). Values are inserted
// verbatim and never rescanned. Keys of `vars` the text does not use are
// allowed (the two rails pass a superset of what kernel.cpp.in references).
absl::StatusOr<std::string> RenderTemplate(absl::string_view text,
                                           const TemplateVars& vars);

// Parses "key=value" command-line pairs; a pair without '=', an empty key or
// a repeated key is InvalidArgument.
absl::StatusOr<TemplateVars> ParseTemplateVars(
    const std::vector<std::string>& pairs);

}  // namespace pto

#endif  // PTO_COMMON_TEMPLATE_RENDER_H_
