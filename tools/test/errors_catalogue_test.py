"""docs/errors.md cannot drift from the sources.

Fails when the catalogue lacks: a runtime error code as `code=N NAME`
(runtime/api/error_codes.{h,cc}); a parser depth limit with its value; or the
constant text of a message the tools print (the first string literal of every
Fail / UsageError / *Error(...) call in the tools' sources).

  errors_catalogue_test.py DOC error_codes.h error_codes.cc lexer.h parser.h TOOL_SOURCES...
"""
import re
import sys

doc_path, codes_h, codes_cc, lexer_h, parser_h = sys.argv[1:6]
sources = sys.argv[6:]
doc = open(doc_path).read()
missing = []

# 1. Every error code, as `code=N NAME`.
values = dict(re.findall(r"(kError\w+) = (\d+),", open(codes_h).read()))
names = dict(re.findall(r"case (kError\w+): return \"(\w+)\";", open(codes_cc).read()))
assert len(values) >= 10 and set(values) == set(names), (values, names)
for k, v in values.items():
    if v == "0":
        continue
    entry = "`code=%s %s`" % (v, names[k])
    if entry not in doc:
        missing.append("error code " + entry)

# 2. The parser's depth limits: the constant and its value in one table row.
for header in (lexer_h, parser_h):
    for name, value in re.findall(r"inline constexpr int (kMax\w+) = (\d+);", open(header).read()):
        row = [l for l in doc.splitlines() if "`%s`" % name in l]
        if not row or "| %s |" % value not in row[0]:
            missing.append("limit %s = %s" % (name, value))

# 3. The constant text of every message the tools print.
call = re.compile(
    r'(?:\bFail\(\s*\d+,\s*|\bUsageError\((?:Info\(\),\s*)?|'
    r'\b(?:InvalidArgument|FailedPrecondition|Internal|NotFound|ResourceExhausted)Error\(|'
    r'\bUserError\([^,]+,\s*)(?:(?:absl|pto)::StrCat\(\s*)?(?:[a-z_]+(?:\.[a-z_]+\(\))?,\s*)?'
    r'"((?:[^"\\]|\\.)*)"', re.S)
checked = 0
for path in sources:
    for lit in call.findall(open(path).read()):
        text = lit.replace('\\"', '"').replace("\\n", "\n").split("\n")[0]
        text = text.strip(" :'(").rstrip(" '(=")
        if len(text) < 8:  # "--", ": ", "--ranks=": the rest of the message is variable
            continue
        checked += 1
        if text not in doc:
            missing.append("%s: message '%s'" % (path, text))
assert checked >= 20, "found only %d messages: did the sources move?" % checked

if missing:
    print("docs/errors.md lacks:\n  " + "\n  ".join(missing))
    sys.exit(1)
print("ok: %d codes, %d messages" % (len(values) - 1, checked))
