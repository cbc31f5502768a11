// render_template IN OUT key=value...: renders a builtin template at build
// time (docs/codegen.md) with the same code compiler/codegen uses.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "common/template_render.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: render_template IN OUT [key=value...]\n";
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::cerr << "render_template: cannot read " << argv[1] << "\n";
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<pto::TemplateVars> vars =
      pto::ParseTemplateVars(std::vector<std::string>(argv + 3, argv + argc));
  if (!vars.ok()) {
    std::cerr << "render_template: " << vars.status().message() << "\n";
    return 1;
  }
  absl::StatusOr<std::string> out = pto::RenderTemplate(text.str(), *vars);
  if (!out.ok()) {
    std::cerr << "render_template: " << argv[1] << ": " << out.status().message()
              << "\n";
    return 1;
  }
  std::ofstream o(argv[2], std::ios::binary);
  o << *out;
  if (!o.flush()) {
    std::cerr << "render_template: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
