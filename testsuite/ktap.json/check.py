#!/usr/bin/python3
# check.py JSON TEXT START_NS END_NS: the JSON lines of values.stp (ktap
# --json) against what the script computed and its plain text run (TEXT):
# one "ok NAME" or "FAIL NAME: why" line per check (json.exp passes them on)
import json
import sys

jpath, tpath, start, end = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
results = []


def check(name, cond, why=""):
    results.append(("ok " if cond else "FAIL ") + name + ("" if cond else ": " + why))


raw = open(jpath, "rb").read()
objs = []
try:
    # every line one object: a parser per line, not one for the file
    for line in raw.decode("utf-8").split("\n")[:-1]:
        objs.append(json.loads(line))
    check("every line is one JSON object", raw.endswith(b"\n") and all(isinstance(o, dict) for o in objs),
          "no final newline, or a line that is not an object")
except (UnicodeDecodeError, ValueError) as e:
    check("every line is one JSON object", False, str(e))
by_type = {}
for o in objs:
    by_type.setdefault(o.get("type"), []).append(o)

recs = [o for o in objs if "seq" in o]
seqs = [o["seq"] for o in recs]
check("records are in seq order", seqs == sorted(seqs) and len(set(seqs)) == len(seqs), str(seqs[:10]))
times = [o["time_ns"] for o in recs]
check("time stamps are the run's, in order", times and all(start - 10e9 <= t <= end + 10e9 for t in times)
      and times == sorted(times), "%s not in %d..%d" % (times[:3], start, end))

out = by_type.get("output", [])
text = "".join(o["text"] for o in out)
plain = open(tpath, "rb").read().decode("latin-1")
# the plain run's text minus the histograms' and backtrace's text
first = plain.split("\n", 1)[0] + "\n"
check("escapes: quotes, backslash, tab, control and non-UTF-8 bytes",
      out and out[0]["text"] == 'quote " backslash \\ tab \t ctl \x01 high \xff end\n'
      and first == out[0]["text"], repr(out[:1]) + " vs " + repr(first))
ticks = [o for o in out if o["text"].startswith("tick ")]
check("40 ticks, each on the CPU its record names",
      len(ticks) == 40 and all(o["text"] == "tick cpu=%d\n" % o["cpu"] for o in ticks),
      "%d ticks: %s" % (len(ticks), [(o["text"], o["cpu"]) for o in ticks[:3]]))
check("output text in the order printed", "after the histograms\n" in text
      and text.index("after the histograms") < text.index("tick "), repr(text[:200]))

hists = by_type.get("hist", [])
check("two histograms", len(hists) == 2, str(len(hists)))
if len(hists) == 2:
    log, lin = hists
    data = list(range(1, 101))
    want = {}
    for v in data:
        b = 1 << (v.bit_length() - 1)      # log buckets: [2^(n-1), 2^n)
        want[b] = want.get(b, 0) + 1
    check("@hist_log: statistic", (log["kind"], log["count"], log["sum"], log["min"], log["max"], log["avg"])
          == ("log", 100, 5050, 1, 100, 50), str(log))
    check("@hist_log: buckets as numbers", [(b["value"], b["count"]) for b in log["buckets"]]
          == sorted(want.items()), str(log["buckets"]))
    mods = [v % 10 for v in data]
    wl = [(lo, sum(1 for m in mods if lo <= m < lo + 2)) for lo in (0, 2, 4, 6)]
    check("@hist_linear: statistic", (lin["kind"], lin["lo"], lin["hi"], lin["step"], lin["count"], lin["sum"],
                                      lin["min"], lin["max"]) == ("linear", 0, 6, 2, 100, sum(mods), 0, 9), str(lin))
    got = [(b["value"], b["count"], b.get("over", False)) for b in lin["buckets"]]
    check("@hist_linear: buckets, overflow marked",
          got == [(v, n, False) for v, n in wl] + [(6, sum(1 for m in mods if m >= 8), True)], str(got))

stats = by_type.get("stat", [])
check("print(s) of a statistic", [{k: v for k, v in o.items() if k not in ("cpu", "time_ns", "seq")} for o in stats]
      == [{"type": "stat", "name": "h", "count": 100, "sum": 5050, "min": 1, "max": 100, "avg": 50}], str(stats))
arrays = by_type.get("array", [])
big = [o for o in arrays if o["name"] == "big"]
entries = [e for o in big for e in o["entries"]]
check("print(a) of an array: every element, in order, over several records",
      len(big) >= 2 and entries == [{"key": [i], "value": i * 1000000007} for i in range(300)]
      and all(o.get("more") is True for o in big[:-1]) and "more" not in big[-1],
      "%d records, %d entries" % (len(big), len(entries)))
names = [o for o in arrays if o["name"] == "names"]
check("print(a): string keys and values", len(names) == 1 and
      names[0]["entries"] == [{"key": ['x"y', 2], "value": "v"}], str(names))
check("print() of a statistic and an array as text",
      "\nh @count=100 @min=1 @max=100 @sum=5050 @avg=50\n" in plain and "\nbig[0]=0\n" in plain
      and "\nbig[299]=299000002093\n" in plain and '\nnames["x"y",2]="v"\n' in plain, plain[:300])

bts = by_type.get("backtrace", [])
frames = bts[0]["frames"] if bts else []
check("backtrace: frames with hex addresses and symbols",
      len(bts) == 1 and len(frames) >= 2 and all(f["addr"].startswith("0xffffffff") and
                                                  int(f["addr"], 16) > 0 for f in frames)
      and any(f["symbol"].startswith("vfs_write+") for f in frames), str(bts))
check("backtrace: the same frames as the text run",
      all(" : " + f["symbol"] in plain for f in frames) and frames, "")

check("warning message", [o.get("message") for o in by_type.get("warning", [])] == ["a warning"],
      str(by_type.get("warning")))
check("drop and skip counts", [o["count"] for o in by_type.get("dropped", [])] == [0]
      and len(by_type.get("skipped", [])) == 1, str(by_type.get("dropped")))
check("exit last, status 0, with its reason", objs and objs[-1] == {"type": "exit", "status": 0,
                                                                    "reason": "the script called exit()"},
      str(objs[-1:]))
print("\n".join(results))
