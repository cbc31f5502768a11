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
