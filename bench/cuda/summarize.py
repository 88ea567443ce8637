"""bench/cuda/summarize.py -- markdown tables for bench/RESULTS.md from the raw outputs of
bench/cuda/run.sh:

  summarize.py nn --peak TFLOPS FILE...        `shido bench nn` outputs -> one table, with the
                                                fraction of the dense fp16 peak for the nets
                                                whose flops torch_baseline.py knows
  summarize.py ratio --torch JSON FILE...      ours against the best PyTorch variant, per net
                                                and batch
  summarize.py peak "GPU NAME"                 the dense fp16 tensor-core peak (TFLOP/s), 0 if
                                                unknown (same rule as bench_conv.c)
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_baseline import SHIDO_NAMES, flops_per_eval  # noqa: E402

# `shido bench nn` rows: net (may contain spaces), backend, threads, batch, evals, evals/s,
# ms/batch, evals per CPU second.
ROW = re.compile(r"^(?P<net>.*\S)\s+(?P<backend>\S+)\s+(?P<threads>\d+)\s+(?P<batch>\d+)\s+"
                 r"(?P<evals>\d+)\s+(?P<rate>[\d.]+)\s+(?P<ms>[\d.]+)\s+"
                 r"(?P<cpu>[\d.]+|inf|nan)\s*$")


def peak_tflops(name):
    if "H100" in name and "PCI" in name.upper():
        return 756.0
    if any(g in name for g in ("H100", "H200", "H800")):
        return 989.4
    return 0.0


def net_key(shido_name):
    for key, sub in SHIDO_NAMES.items():
        if sub in shido_name:
            return key
    return None


def read_rows(paths):
    """Rows of all files; the label of a file is the --backend it ran with (file name after
    'nn_'), so that two runs of one backend name with different options stay apart."""
    rows = []
    for path in paths:
        label = os.path.basename(path)
        label = re.sub(r"^nn_|\.txt$", "", label)
        with open(path, errors="replace") as f:
            for line in f:
                m = ROW.match(line.rstrip("\n"))
                if m and not line.startswith("net "):
                    r = m.groupdict()
                    r["label"] = label
                    rows.append(r)
    return rows


def cmd_nn(args):
    print("| net | run | threads | batch | evals/s | ms/batch | TFLOP/s | of fp16 peak |")
    print("|---|---|---|---|---|---|---|---|")
    for r in read_rows(args.files):
        key = net_key(r["net"])
        rate = float(r["rate"])
        tf = pk = ""
        if key:
            t = rate * flops_per_eval(key) / 1e12
            tf = f"{t:.1f}"
            pk = f"{100 * t / args.peak:.1f}%" if args.peak > 0 else "n/a"
        print(f"| {r['net']} | {r['label']} | {r['threads']} | {r['batch']} | {rate:,.0f} | "
              f"{float(r['ms']):.3f} | {tf} | {pk} |")


def cmd_ratio(args):
    with open(args.torch) as f:
        torch_rows = json.load(f)
    best = {}
    for t in torch_rows:
        if t.get("evals_per_s"):
            k = (t["net"], t["batch"])
            if k not in best or t["evals_per_s"] > best[k]["evals_per_s"]:
                best[k] = t
    print("| net | batch | shido run | shido evals/s | best PyTorch (variant) evals/s | ratio |")
    print("|---|---|---|---|---|---|")
    for r in read_rows(args.files):
        key = net_key(r["net"])
        t = best.get((key, int(r["batch"])))
        if not key or not t:
            continue
        ours = float(r["rate"])
        print(f"| {key} | {r['batch']} | {r['label']} (threads {r['threads']}) | {ours:,.0f} | "
              f"{t['evals_per_s']:,.0f} ({t['variant']}) | {ours / t['evals_per_s']:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("nn")
    p.add_argument("--peak", type=float, default=0.0)
    p.add_argument("files", nargs="+")
    p = sub.add_parser("ratio")
    p.add_argument("--torch", required=True)
    p.add_argument("files", nargs="+")
    p = sub.add_parser("peak")
    p.add_argument("name")
    args = ap.parse_args()
    if args.cmd == "nn":
        cmd_nn(args)
    elif args.cmd == "ratio":
        cmd_ratio(args)
    else:
        print(peak_tflops(args.name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
