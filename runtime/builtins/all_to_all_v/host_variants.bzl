"""Names and template variables of the HOST-rail all_to_all_v renderings.

docs/collectives.md: variant = "<builtin op>__<dtype suffix>", entry =
the variant with every non-[A-Za-z0-9_] char replaced by '_', kernel_name =
entry + "_kernel", rendered under next_levels/<variant>/.
"""

# (dtype suffix, dtype_cpp) per variant (§2.6).
HOST_VARIANTS = [
    ("fp32", "float"),
    ("int8", "int8_t"),
]

def host_entry(variant):
    return "builtin_tensor_all_to_all_v__" + variant

def host_dir(variant):
    return "next_levels/builtin.tensor.all_to_all_v__" + variant + "/"

def host_vars(variant, dtype_cpp):
    """The render_template key=value arguments of one variant."""
    entry = host_entry(variant)
    return " ".join([
        "variant=builtin.tensor.all_to_all_v__" + variant,
        "entry=" + entry,
        "kernel_name=" + entry + "_kernel",
        "template_package=runtime.builtins.all_to_all_v",
        "runtime=tensormap_and_ringbuffer",
        "dtype_cpp=" + dtype_cpp,
    ])

# Template -> rendered path, as the HOST backend lays a variant out (§4.11).
def host_renderings(variant):
    d = host_dir(variant)
    e = host_entry(variant)
    return [
        ("entry.cpp.in", d + "orchestration/" + e + ".cpp"),
        ("kernel.cpp.in", d + "kernels/aiv/" + e + "_kernel.cpp"),
        ("kernel_config.textproto.in", d + "kernel_config.textproto"),
    ]
