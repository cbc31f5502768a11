"""dependency_closure: the configured dependency closure of a set of targets.

An aspect walks every attribute (deps, data, srcs, tools, implicit ones) of
the configured targets, so select() is resolved as in a real build, and the
rule writes one label per line. layering_test checks the file for labels a
layer must not reach.
"""

_ClosureInfo = provider(fields = ["labels"])

def _closure_aspect_impl(target, ctx):
    direct = [str(target.label)]
    transitive = []
    for name in dir(ctx.rule.attr):
        value = getattr(ctx.rule.attr, name)
        values = value if type(value) == "list" else [value]
        for v in values:
            if type(v) != "Target":
                continue
            if _ClosureInfo in v:
                transitive.append(v[_ClosureInfo].labels)
            else:
                # A source file (srcs, data): aspects do not visit files.
                direct.append(str(v.label))
    return [_ClosureInfo(labels = depset(direct, transitive = transitive))]

_closure_aspect = aspect(
    implementation = _closure_aspect_impl,
    attr_aspects = ["*"],
)

def _dependency_closure_impl(ctx):
    labels = depset(transitive = [t[_ClosureInfo].labels for t in ctx.attr.targets])
    out = ctx.actions.declare_file(ctx.label.name + ".txt")
    ctx.actions.write(out, "\n".join(sorted(labels.to_list())) + "\n")
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

dependency_closure = rule(
    implementation = _dependency_closure_impl,
    attrs = {
        "targets": attr.label_list(aspects = [_closure_aspect]),
    },
)

def _expect_analysis_failure_impl(ctx):
    target = ctx.attr.target[0]
    messages = ""
    if AnalysisFailureInfo in target:
        messages = "\n".join([f.message for f in target[AnalysisFailureInfo].causes.to_list()])
    want = ctx.attr.message
    ok = AnalysisFailureInfo in target and want in messages
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    if ok:
        body = "echo 'PASS: %s fails analysis: %s'" % (ctx.attr.target[0].label, want)
    else:
        body = "echo 'FAIL: %s was expected to fail analysis with \"%s\"; got: %s'; exit 1" % (
            ctx.attr.target[0].label,
            want,
            messages.replace("'", "") or "no failure",
        )
    ctx.actions.write(script, "#!/bin/bash\n" + body + "\n", is_executable = True)
    return [DefaultInfo(executable = script)]

def _allow_failures_impl(settings, attr):
    return {"//command_line_option:allow_analysis_failures": True}

_allow_failures = transition(
    implementation = _allow_failures_impl,
    inputs = [],
    outputs = ["//command_line_option:allow_analysis_failures"],
)

# A test that passes when `target` fails analysis with `message` in one of
# its errors (a dependency the visibility rules forbid, say).
expect_analysis_failure_test = rule(
    implementation = _expect_analysis_failure_impl,
    attrs = {
        "target": attr.label(cfg = _allow_failures),
        "message": attr.string(mandatory = True),
        "_allowlist_function_transition": attr.label(
            default = "@bazel_tools//tools/allowlists/function_transition_allowlist",
        ),
    },
    test = True,
)
