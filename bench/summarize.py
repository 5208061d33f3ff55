"""Print Mdocs/s and speed ratios from a pytest-benchmark JSON file.

    python bench/summarize.py bench.json
"""
import json
import sys
from collections import defaultdict


def main(path):
    with open(path) as f:
        data = json.load(f)
    groups = defaultdict(list)
    for b in data["benchmarks"]:
        groups[b["group"]].append(b)
    for group, rows in groups.items():
        print(f"== {group}")
        # Baseline of the group: the numpy row, else the numba one at the same thread count.
        base = next((r for r in rows if r["extra_info"].get("impl") == "numpy"), None)
        numba_rows = {r["extra_info"].get("n_threads"): r for r in rows if r["extra_info"].get("impl") == "numba"}
        floor_rows = {r["extra_info"].get("n_threads"): r for r in rows
                      if r["extra_info"].get("impl") == "floor"}
        one_thread = {r["extra_info"].get("impl"): r["stats"]["min"] for r in rows if r["extra_info"].get("n_threads") == 1}
        for r in rows:
            info, t = r["extra_info"], r["stats"]["min"]
            line = f"  {r['name']:<45} min {t * 1e3:9.2f} ms"
            if "n_docs" in info:
                line += f"  {info['n_docs'] / t / 1e6:8.1f} Mdocs/s"
            if base is not None and r is not base:
                line += f"  {base['stats']['min'] / t:7.1f}x numpy"
            nb = numba_rows.get(info.get("n_threads"))
            if base is None and nb is not None and r is not nb:
                line += f"  {nb['stats']['min'] / t:7.2f}x numba"
            fl = floor_rows.get(info.get("n_threads"))
            if fl is not None and r is not fl:
                # time over the memory-pass floor's at the same thread count (bench/roofline.py)
                line += f"  {t / fl['stats']['min']:5.2f}x floor"
            t1 = one_thread.get(info.get("impl"))
            if isinstance(info.get("n_threads"), int) and info.get("n_threads", 1) > 1 and t1:
                line += f"  {t1 / t:5.2f}x 1 thread"
            if "vs" in info:
                other = next((o for o in rows if o["extra_info"].get("impl") == info["vs"]
                              and o["extra_info"].get("n_threads") == info.get("n_threads")), None)
                if other is not None:
                    ratio = t / other["stats"]["min"]
                    line += f"  {ratio:6.3f}x {info['vs']}"
                    if info["vs"].startswith("kernel"):
                        line += f" (serial share {max(0.0, 1 - 1 / ratio) * 100:4.1f}%)"
            if r["stats"]["min"] < 1e-3:
                line += f"  {t * 1e6:8.2f} us a call"
            print(line)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bench.json")
