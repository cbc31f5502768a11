#!/usr/bin/env python3
"""Passes and code generation never match an operator by its name string.

They ask ir::IsOp(call, OpId::kX) or an OpTraits query (compiler/ops/op_registry.h);
the names are spelled once, in compiler/ir/op_list.inc (the collectives' in
their CollectiveDefs, compiler/ops/collective_def.cc). This test scans the
non-test sources of compiler/passes and compiler/codegen and fails on:
  compare   an op-name literal compared with == or !=;
  helper    an op-name literal passed to an IsOp-like helper (Is*/As*/Find*Op*);
  prefix    a name-prefix test (rfind("pl.tile.", 0) and the like);
  literal   any other whole op-name literal (a name set, a switch-by-name
            table, a call built by name), outside the files in ALLOWED.
Usage: no_op_name_compare_test.py [--expect FILE KIND:LINE...] FILE...
With --expect, FILE must report exactly the listed findings (the self-test).
"""
import re
import sys

OP = r'(?:pl|pld|builtin)\.'
FULL = re.compile(r'"(' + OP + r'[a-z_0-9]+\.[a-z_0-9]+)"')
COMPARE = re.compile(r'(?:==|!=)\s*"' + OP + r'|"' + OP + r'[^"]*"\s*(?:==|!=)')
HELPER = re.compile(r'\b(?:Is|As|Find|Match)\w*Op\w*\([^()]*"' + OP)
PREFIX = re.compile(r'\b(?:rfind|find|starts_with|StartsWith|substr)\([^()]*"' + OP +
                    r'|"' + OP + r'[a-z_0-9.]*"\s*\)?\s*\.size\(\)')

# Files whose literal names (not compares) are allowed: none since the
# collectives' passes ask their CollectiveDef (issue 23 point 2).
ALLOWED = ()


def strip_comment(line):
  """The line without a // comment (a // inside a string literal stays)."""
  in_str = False
  i = 0
  while i < len(line):
    c = line[i]
    if c == '\\' and in_str:
      i += 2
      continue
    if c == '"':
      in_str = not in_str
    elif not in_str and line.startswith('//', i):
      return line[:i]
    i += 1
  return line


def findings(path):
  out = []
  allowed = path.endswith(ALLOWED)
  with open(path, encoding='utf-8') as f:
    for n, raw in enumerate(f, 1):
      line = strip_comment(raw.rstrip('\n'))
      kinds = []
      if COMPARE.search(line):
        kinds.append('compare')
      if HELPER.search(line):
        kinds.append('helper')
      if PREFIX.search(line):
        kinds.append('prefix')
      if not kinds and not allowed and FULL.search(line):
        kinds.append('literal')
      out.extend((k, n, raw.strip()) for k in kinds)
  return out


def main(argv):
  if len(argv) > 1 and argv[1] == '--expect':
    path, want = argv[2], sorted(argv[3:])
    got = sorted('%s:%d' % (k, n) for k, n, _ in findings(path))
    if got != want:
      print('self-test: %s reports %s, expected %s' % (path, got, want))
      return 1
    print('self-test ok: %d findings' % len(got))
    return 0
  bad = 0
  for path in argv[1:]:
    for kind, n, text in findings(path):
      print('%s:%d: %s: %s' % (path, n, kind, text))
      bad += 1
  if bad:
    print('%d operator-name matches; use ir::IsOp(call, ir::OpId::kX) or an OpTraits '
          'query (compiler/ops/op_registry.h)' % bad)
    return 1
  print('ok: %d files, no operator-name matches' % (len(argv) - 1))
  return 0


if __name__ == '__main__':
  sys.exit(main(sys.argv))
