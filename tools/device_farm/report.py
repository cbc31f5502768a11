"""The farm runner's outputs: a Markdown summary, JUnit XML and the JSON
trend of per-kernel times across nights."""

import json
import os
from xml.sax.saxutils import escape, quoteattr

# Case outcomes.
PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


class Case(object):
  """One line of the report: the build, the requires-hw tests, or a program."""

  def __init__(self, name, outcome, message="", details="", seconds=0.0):
    self.name = name
    self.outcome = outcome
    self.message = message
    self.details = details
    self.seconds = seconds


def write_junit(path, night, cases):
  failures = sum(c.outcome == FAILED for c in cases)
  skipped = sum(c.outcome == SKIPPED for c in cases)
  out = ['<?xml version="1.0" encoding="UTF-8"?>',
         '<testsuites><testsuite name=%s tests="%d" failures="%d" skipped="%d">'
         % (quoteattr("device_farm " + night), len(cases), failures, skipped)]
  for c in cases:
    out.append('<testcase classname="device_farm" name=%s time="%.3f">'
               % (quoteattr(c.name), c.seconds))
    if c.outcome == FAILED:
      out.append("<failure message=%s>%s</failure>" % (quoteattr(c.message), escape(c.details)))
    elif c.outcome == SKIPPED:
      out.append("<skipped message=%s/>" % quoteattr(c.message))
    out.append("</testcase>")
  out.append("</testsuite></testsuites>")
  with open(path, "w") as f:
    f.write("\n".join(out) + "\n")


def write_summary(path, night, backend, devices, cases, timing_rows):
  """timing_rows: (program, kernel, previous_ps or None, today_ps, sim_ps or
  None, status)."""
  failed = [c for c in cases if c.outcome == FAILED]
  lines = ["# Device farm, night %s" % night, "",
           "Backend `%s`, devices: %s." % (backend, ", ".join(devices) or "none"), "",
           "**Result: %s** (%d passed, %d failed, %d skipped)" % (
               "FAILED" if failed else "OK", sum(c.outcome == PASSED for c in cases),
               len(failed), sum(c.outcome == SKIPPED for c in cases)), "",
           "| Case | Result | Message |", "| --- | --- | --- |"]
  for c in cases:
    lines.append("| %s | %s | %s |" % (c.name, c.outcome, c.message.replace("|", "\\|")))
  lines += ["", "## Kernel times", "",
            "| Program | Kernel | previous night | tonight | delta | simulator | tonight / simulator | status |",
            "| --- | --- | --- | --- | --- | --- | --- | --- |"]
  for program, kernel, prev, today, sim, status in timing_rows:
    delta = "%+.1f %%" % ((today / prev - 1) * 100) if prev else "—"
    ratio = "%.2f" % (today / sim) if sim else "—"
    lines.append("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        program, kernel, _us(prev), _us(today), delta, _us(sim), ratio, status))
  for c in failed:
    if c.details:
      lines += ["", "## %s" % c.name, "", "```", c.details.rstrip(), "```"]
  with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")


def _us(ps):
  return "—" if ps is None else "%.3f µs" % (ps * 1e-6)


def update_trend(path, night, backend, kernels):
  """Adds (or replaces) tonight's entry: kernels = {"program:kernel":
  {"tasks", "total_ps", "max_ps"}}. Returns the whole trend."""
  trend = {"schema": 1, "nights": []}
  if os.path.exists(path):
    with open(path) as f:
      trend = json.load(f)
  nights = [n for n in trend["nights"] if n["night"] != night]
  nights.append({"night": night, "backend": backend, "kernels": kernels})
  nights.sort(key=lambda n: n["night"])
  trend["nights"] = nights
  tmp = path + ".tmp"
  with open(tmp, "w") as f:
    json.dump(trend, f, indent=1, sort_keys=True)
    f.write("\n")
  os.replace(tmp, path)
  return trend
