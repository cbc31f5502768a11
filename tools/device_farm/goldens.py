"""Reads the parts of a golden (tools/golden/golden.proto, protobuf text
format) that the farm runner needs: identity and per-kernel times. Comparing
data stays with pto-golden, which reads the whole schema."""

import os
import re
import shutil

# Text-format tokens: a string, a name or number, a brace, a colon.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}:]|[^\s{}:"]+')


class GoldenError(Exception):
  pass


def _tokens(text):
  for line in text.splitlines():
    stripped = line.strip()
    if stripped.startswith("#"):
      continue
    for tok in _TOKEN.findall(line):
      yield tok


def _value(tok):
  if tok.startswith('"'):
    return bytes(tok[1:-1], "utf-8").decode("unicode_escape")
  try:
    return int(tok)
  except ValueError:
    try:
      return float(tok)
    except ValueError:
      return tok


def _parse(tokens):
  """Parses fields until '}' or the end: a list of (name, value) where a
  message value is itself such a list."""
  fields = []
  for tok in tokens:
    if tok == "}":
      return fields
    name = tok
    nxt = next(tokens, None)
    if nxt == ":":
      nxt = next(tokens, None)
    if nxt == "{":
      fields.append((name, _parse(tokens)))
    elif nxt is None:
      raise GoldenError("field %s has no value" % name)
    else:
      fields.append((name, _value(nxt)))
  return fields


def read(path):
  """Returns {'program', 'platform', 'ranks', 'backend', 'error_code',
  'sim_time_ps', 'kernels': {name: {'tasks', 'total_ps', 'max_ps'}}}."""
  try:
    with open(path) as f:
      fields = _parse(iter(list(_tokens(f.read()))))
  except (OSError, UnicodeDecodeError) as e:
    raise GoldenError("cannot read golden %s: %s" % (path, e))
  g = {"program": "", "platform": "", "ranks": 0, "backend": "", "error_code": 0,
       "sim_time_ps": 0, "kernels": {}}
  for name, value in fields:
    if name == "kernels" and isinstance(value, list):
      k = dict(value)
      g["kernels"][k.get("kernel", "")] = {
          "tasks": int(k.get("tasks", 0)),
          "total_ps": int(k.get("total_ps", 0)),
          "max_ps": int(k.get("max_ps", 0)),
      }
    elif name in g and not isinstance(value, list):
      g[name] = value
  if not g["program"]:
    raise GoldenError("golden %s names no program" % path)
  return g


def copy(src, dst_dir):
  """Copies a golden and the .npy files of its outputs into dst_dir."""
  os.makedirs(dst_dir, exist_ok=True)
  stem = os.path.basename(src)[:-len(".textproto")]
  shutil.copy(src, dst_dir)
  src_dir = os.path.dirname(src) or "."
  for name in os.listdir(src_dir):
    if name.startswith(stem + ".") and name.endswith(".npy"):
      shutil.copy(os.path.join(src_dir, name), dst_dir)
  return os.path.join(dst_dir, os.path.basename(src))
