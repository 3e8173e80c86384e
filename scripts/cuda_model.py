#!/usr/bin/env python3
"""The CUDA kernels' speed model: how fast each fused kernel should run on
an H100, computed without a GPU, and, where a GPU run left Nsight Compute's
counters (cuda/results/<run>/ncu_<R>x<D>.txt.gz), how far the model is from
the hardware.

    scripts/cuda_model.py [--build DIR] [--traffic FILE] [--ncu RUN_DIR]
                          [--json OUT] [--shape RxD]... [--dtype LIST]

--build DIR   a build with the emulator (cuda_traffic) and nvcc (the kernels'
              ptxas report, scripts/cuda_resources.py); default build
--traffic F   read cuda_traffic's JSON instead of running it
--ncu DIR     a cuda/results run folder with ncu_<R>x<D>.txt[.gz]
--json OUT    write the table as JSON (schema scaleref.cuda_model/1)
--sample N    blocks of a launch the emulator runs (default 16; counts scaled)
--no-ptxas    skip ptxas (no registers, spills or occupancy: 1 block per SM assumed)
--check LIST  exit 1 when a kernel misses one of the criteria below; coalescing,
              banks and bytes judge bandwidth-bound launches only (modelled
              DRAM time at least the launch floor: a launch moving less waits
              on its start, not on its sectors):
              coalescing (a launch's global
              sectors, loads and stores together, at most 1/0.95 of the
              fewest that hold the bytes asked), banks
              (no shared-memory request above 2-way), spills (none), bytes
              (modelled DRAM bytes at most 1.10 x the minimum, every case),
              fill (a launch has at least min(SMs, rows) blocks: a row kernel
              with fewer leaves SMs idle that its rows could have used; a
              16-row batch can fill only 16 of 132; sum_partials's units are
              its tiles of 512 output bytes), latency (a bandwidth-bound
              launch keeps at least LATENCY_WARPS warps resident per SM: the
              bytes in flight that cover DRAM latency at the copy's bandwidth,
              below); `all` for the six

What it computes, per kernel launch of each case (op x dir x dtype x shape):

  traffic     the emulator's counters (cuda/emu/include/scaleref/emu/traffic.hpp):
              global requests and 32-byte sectors against the fewest that
              hold the bytes asked (coalescing), shared-memory wavefronts
              against the fewest (bank conflicts), the DRAM sectors under
              its cache model
  resources   ptxas's registers, spills and static shared memory per kernel
  occupancy   sm_90's rules (DEVICE below): blocks per SM limited by threads,
              registers (allocated per warp in units of 256), shared memory
              (static + dynamic + 1 KiB reserved per block) and 32 blocks;
              waves = blocks / (SMs x blocks per SM)
  DRAM bytes  sectors read first in the launch + re-reads whose reuse
              distance times the blocks resident at once exceeds the L2
              (the blocks share it evenly; a re-read of a sector other
              blocks touch too, a parameter vector each row reads, is an L2
              hit: traffic.hpp) + sectors written + those far re-reads of
              sectors stored to since their last load (a running sum in
              global memory, written back when evicted), x 32 bytes
  time        sum over launches of max(DRAM bytes / copy bandwidth, shared
              wavefronts / (SMs x 1 per clock x clock), launch floor), as a
              fraction of a copy of the case's minimum bytes
              (cuda/bench/bytes.hpp) at the same bandwidth

Latency floor: to run at the copy's bandwidth B with a DRAM latency L, an
SM must keep B L / SMs bytes in flight (Little's law); a warp of the row
kernels keeps about two 16-byte loads a lane in flight (x and dy, or x and
y; the parameters come from L2), 1 KiB. With B = 3021 GB/s and L = 0.7 us,
16 KiB an SM, 16 warps. L is an assumption of this model (Hopper's HBM
latency under load), not a measurement; the floor was added after the H200
run (cuda/results/2026-11-27-nvidia-h200/) timed SeeDNorm's 16-head
backward, 1-8 warps an SM, at 1.9-43x its bandwidth prediction.

What it cannot predict: latency-bound kernels (too few warps in flight to
cover DRAM latency: it flags them, above, but does not slow the time for
them), instruction and special-function throughput, L1 hits, DRAM
page effects, the L2's real replacement policy, clocks. It is a model,
never a measurement.
"""
import argparse
import csv
import gzip
import io
import json
import math
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_resources  # noqa: E402

# The device the model predicts for: an H100 SXM (80 GB HBM3) as the GPU run
# of 2026-11-26 reported it (cuda/results/2026-11-26-nvidia-h100-80gb-hbm3/:
# 132 SMs, cuda_bench's L2 of 52 MB, a device-to-device copy at 3021 GB/s),
# and sm_90's occupancy limits (CUDA C++ Programming Guide, compute capability 9.0).
DEVICE = {
    "name": "NVIDIA H100 80GB HBM3",
    "sms": 132,
    "l2_bytes": 52_428_800,
    "copy_bandwidth_gbs": 3021.0,
    "threads_per_sm": 2048,
    "blocks_per_sm": 32,
    "registers_per_sm": 65536,
    "register_unit": 256,  # registers are allocated per warp, in units of 256
    "shared_per_sm": 233472,  # 228 KiB
    "shared_reserved_per_block": 1024,
    "launch_floor_us": 2.0,  # a launch's fixed cost: start, tail, a few DRAM latencies
    "sm_clock_ghz": 1.98,  # run1/env.txt's clocks.max.sm
    "shared_wavefronts_per_clock": 1,  # per SM
    "dram_latency_us": 0.7,  # an assumption (see the latency floor above), not measured
}

# The latency floor: warps an SM must hold to keep the copy's bandwidth x
# latency in flight, at 2 loads of 16 bytes a lane.
LATENCY_WARPS = math.ceil(DEVICE["copy_bandwidth_gbs"] * 1e3 * DEVICE["dram_latency_us"] /
                          DEVICE["sms"] / (32 * 16 * 2))

SHAPES = ["4096x4096", "2048x16384", "1024x65536", "16x4096"]


def normalized(name):
    """One spelling of a kernel's name for the emulator, ptxas and ncu."""
    name = re.sub(r"\(.*\)$", "", name.strip())
    for a, b in (("void ", ""), ("scaleref::cuda::", ""), ("(anonymous namespace)::", ""),
                 ("<unnamed>::", ""), ("{anonymous}::", ""), ("__nv_bfloat16", "bf16"),
                 ("(int)", ""), ("(bool)", ""), ("1U", "1"), (" ", "")):
        name = name.replace(a, b)
    return name.replace(",false>", ",0>").replace(",true>", ",1>")  # ncu spells a bool 0 or 1


CHECKS = ("coalescing", "banks", "spills", "bytes", "fill", "latency")


def fill_units(case, launch):
    """The independent pieces of work a launch could spread over the SMs:
    a row kernel's rows; sum_partials's tiles of 512 bytes of output, the
    least that 32 lanes read and write coalesced with 16-byte accesses (it
    adds every partial row of a column, so a column cannot be split across
    blocks without a third pass)."""
    if "sum_partials" in launch["kernel"]:
        return max(1, int(launch["global_store"]["min_sectors"] * 32 // 512)), "column tiles"
    return case["rows"], "rows"


def misses(case, checks):
    """What `case` misses of the criteria in `checks`, one line each."""
    out = []
    label = f"{case['op']} {case['dir']} {case['dtype']} {case['rows']}x{case['cols']}"
    for l in case["launches"]:
        r = l["resources"] or {}
        if "spills" in checks and (r.get("spill_stores") or r.get("spill_loads")
                                   or r.get("stack_frame_bytes")):
            out.append(f"{label}: {l['kernel']}: local memory: {r['spill_stores']} bytes "
                       f"spilled, a {r['stack_frame_bytes']}-byte stack frame")
        units, what = fill_units(case, l)
        if "fill" in checks and l["blocks"] < min(DEVICE["sms"], units):
            out.append(f"{label}: {l['kernel']}: {l['blocks']} blocks fill {l['blocks']} of "
                       f"{DEVICE['sms']} SMs, with {units} {what} to share out")
        if l["bound"] != "bandwidth":
            continue
        # the share of the launch's global sectors that carry asked-for bytes
        # (loads and stores together: sum_partials's scattered final writes
        # of D entries weigh what they cost next to its reads of blocks x D)
        sectors = l["global_load"]["sectors"] + l["global_store"]["sectors"]
        least = l["global_load"]["min_sectors"] + l["global_store"]["min_sectors"]
        if "coalescing" in checks and sectors and least / sectors < 0.95:
            worst = min(("load", "store"), key=lambda k: (
                l[f"global_{k}"]["min_sectors"] / l[f"global_{k}"]["sectors"]
                if l[f"global_{k}"]["sectors"] else 1.0))
            t = l[f"global_{worst}"]
            out.append(f"{label}: {l['kernel']}: coalescing {least / sectors:.2f} < 0.95 "
                       f"({worst}s {t['min_sectors'] / t['sectors']:.2f})")
        if "latency" in checks and l["warps_per_sm"] < LATENCY_WARPS:
            out.append(f"{label}: {l['kernel']}: {l['warps_per_sm']} warps resident per SM < "
                       f"{LATENCY_WARPS} to cover DRAM latency")
        if "banks" in checks and l["shared"]["worst_degree"] > 2:
            out.append(f"{label}: {l['kernel']}: a {l['shared']['worst_degree']:.0f}-way bank "
                       f"conflict at {l['shared']['worst_site']}")
    bandwidth_bound = any(l["bound"] == "bandwidth" for l in case["launches"])
    if "bytes" in checks and bandwidth_bound and case["bytes_over_min"] > 1.10:
        out.append(f"{label}: modelled DRAM bytes {case['bytes_over_min']:.2f} x the minimum > 1.10")
    return out


def run_traffic(build, shapes, dtypes, sample, dirs="fwd,bwd"):
    exe = os.path.join(build, "cuda", "emu", "cuda_traffic")
    if not os.path.exists(exe):
        sys.exit(f"cuda_model: {exe} not built (cmake --build {build} --target cuda_traffic)")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "traffic.json")
        args = [exe, "--json", out, "--dtype", dtypes, "--sample", str(sample), "--dir", dirs]
        for s in shapes:
            args += ["--shape", s]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


def ptxas_resources(build):
    entries = cuda_resources.nvcc_commands(build)
    if not entries:
        sys.exit(f"cuda_model: no nvcc compile commands in {build} (nvcc not found at configure?)")
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for e in entries:
            log = cuda_resources.ptxas_report(e["command"], e["file"], tmp)
            for mangled, regs, stores, loads, smem, stack in cuda_resources.kernels(log):
                out[normalized(cuda_resources.readable(mangled))] = {
                    "registers": regs, "spill_stores": stores, "spill_loads": loads,
                    "static_shared_bytes": smem, "stack_frame_bytes": stack}
    return out


def occupancy(threads, regs, shared):
    d = DEVICE
    warps = math.ceil(threads / 32)
    per_warp = math.ceil(regs * 32 / d["register_unit"]) * d["register_unit"]
    limits = {
        "threads": d["threads_per_sm"] // threads,
        "registers": d["registers_per_sm"] // (per_warp * warps) if regs else d["blocks_per_sm"],
        "shared": d["shared_per_sm"] // (shared + d["shared_reserved_per_block"]),
        "blocks": d["blocks_per_sm"],
    }
    blocks = min(limits.values())
    limiter = min(limits, key=limits.get)
    return blocks, limiter, blocks * warps * 32 / d["threads_per_sm"]


def model_launch(launch, resources):
    d = DEVICE
    name = normalized(launch["kernel"])
    res = resources.get(name)
    threads = launch["block"][0] * launch["block"][1] * launch["block"][2]
    scale = launch["scale"]
    shared = launch["dynamic_shared_bytes"] + (res["static_shared_bytes"] if res else 0)
    per_sm, limiter, occ = occupancy(threads, res["registers"] if res else 0, shared)
    resident = min(launch["blocks"], d["sms"] * per_sm)
    waves = launch["blocks"] / (d["sms"] * per_sm)
    # the warps an SM holds: its share of the blocks, at most what fits
    warps_per_sm = min(per_sm, math.ceil(launch["blocks"] / d["sms"])) * math.ceil(threads / 32)
    far = far_dirty = 0
    dirty = launch.get("dirty_reread_by_log2_distance") or [0] * len(launch["reread_by_log2_distance"])
    for k, n in enumerate(launch["reread_by_log2_distance"]):
        if (2 ** k) * resident > d["l2_bytes"]:  # the bucket's shortest distance
            far += n
            far_dirty += dirty[k]  # evicted dirty: written back before the re-read
    # sectors other sampled blocks touched too are shared data (a parameter
    # vector): read once, however many blocks the sampling stands for
    shared_first = launch.get("shared_first_read_sectors", 0)
    read = ((launch["first_read_sectors"] - shared_first + far) * scale + shared_first) * 32
    written = (launch["written_sectors"] + far_dirty) * 32 * scale
    g = {"load": [0, 0, 0], "store": [0, 0, 0]}
    bank = {"wavefronts": 0, "min_wavefronts": 0, "worst_degree": 1.0, "worst_site": ""}
    for s in launch["sites"]:
        if s["memory"] == "global":
            t = g[s["kind"]]
            t[0] += s["requests"] * scale
            t[1] += s["sectors"] * scale
            t[2] += s["min_sectors"] * scale
        else:
            bank["wavefronts"] += s["wavefronts"] * scale
            bank["min_wavefronts"] += s["min_wavefronts"] * scale
            if s["worst_degree"] > bank["worst_degree"]:
                bank["worst_degree"], bank["worst_site"] = s["worst_degree"], s["site"]
    dram = read + written
    # shared memory serves one wavefront per SM per clock: a floor of its own
    shared_us = bank["wavefronts"] / (d["sms"] * d["shared_wavefronts_per_clock"] *
                                      d["sm_clock_ghz"] * 1e3)
    dram_us = dram / (d["copy_bandwidth_gbs"] * 1e3)
    time_us = max(dram_us, shared_us, d["launch_floor_us"])
    # bandwidth-bound: its DRAM time exceeds the launch floor (the kernels
    # the coalescing, bank and byte criteria are about)
    bound = "bandwidth" if dram_us >= d["launch_floor_us"] else "launch"
    return {
        "kernel": name, "grid": launch["grid"], "block": launch["block"],
        "blocks": launch["blocks"], "sampled_blocks": launch["blocks_run"],
        "resources": res, "blocks_per_sm": per_sm, "occupancy_limiter": limiter,
        "theoretical_occupancy": occ, "waves": waves, "resident_blocks": resident,
        "warps_per_sm": warps_per_sm,
        "dram_read_bytes": read, "dram_write_bytes": written,
        "global_load": dict(zip(("requests", "sectors", "min_sectors"), g["load"])),
        "global_store": dict(zip(("requests", "sectors", "min_sectors"), g["store"])),
        "shared": bank, "shared_floor_us": shared_us, "dram_us": dram_us, "bound": bound,
        "time_us": time_us,
    }


def read_ncu(run_dir):
    """(shape, normalized kernel, grid, block) -> averaged metrics over its instances."""
    out = {}
    if not run_dir:
        return out
    for shape in SHAPES:
        path = next((p for p in (os.path.join(run_dir, f"ncu_{shape}.txt"),
                                 os.path.join(run_dir, f"ncu_{shape}.txt.gz")) if os.path.exists(p)),
                    None)
        if not path:
            continue
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            lines = [ln for ln in f if ln.startswith('"')]
        rows = {}
        for r in csv.DictReader(io.StringIO("".join(lines))):
            k = rows.setdefault(r["ID"], {"name": r["Kernel Name"], "grid": r["Grid Size"],
                                          "block": r["Block Size"]})
            k[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        for k in rows.values():
            grid = [int(x) for x in re.findall(r"\d+", k["grid"])]
            block = [int(x) for x in re.findall(r"\d+", k["block"])]
            key = (shape, normalized(k["name"]), tuple(grid), tuple(block))
            out.setdefault(key, []).append(k)
    return {key: {m: sum(i.get(m, 0.0) for i in v) / len(v) for m in v[0] if m not in
                  ("name", "grid", "block")} for key, v in out.items()}


def measured(ncu, shape, launch):
    return ncu.get((shape, launch["kernel"], tuple(launch["grid"]), tuple(launch["block"])))


def dram_agreement(cases):
    """Nsight Compute's DRAM bytes against the model's, per case whose launches it
    all measured: {"read": ..., "read and written": ...}, each (median, lowest,
    highest, cases within 10%, cases) of measured / modelled."""
    out = {}
    for what, keys, mine in (("read", ("dram__bytes_read.sum",), ("dram_read_bytes",)),
                             ("read and written", ("dram__bytes_read.sum", "dram__bytes_write.sum"),
                              ("dram_read_bytes", "dram_write_bytes"))):
        r = []
        for c in cases:
            ls = c["launches"]
            if not ls or any("measured" not in l for l in ls):
                continue
            model = sum(l[k] for l in ls for k in mine)
            if model > 0:
                r.append(sum(l["measured"].get(k, 0.0) for l in ls for k in keys) / model)
        if r:
            r.sort()
            out[what] = (r[len(r) // 2], r[0], r[-1], sum(abs(x - 1) <= 0.10 for x in r), len(r))
    return out


SHARED_WAVES = "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_"
SHARED_CONFLICTS = "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_"


def counter_agreement(pairs):
    """[(what, launches agreeing within 1%, launches compared)] for the model's counts
    against Nsight Compute's; pairs are (global load, global store, shared, measured) per
    launch. The shared wavefronts themselves are compared where the run recorded them
    (gpu_run.sh since 2026-11-27), which tells which conflict count is off where the
    two disagree."""
    def agree(model, hw):
        return sum(1 for m, h in zip(model, hw) if abs(m - h) <= 0.01 * max(h, 1))

    rows = []
    for what, model, hw in (
            ("global load requests", lambda p: p[0]["requests"],
             lambda m: m["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"]),
            ("global load sectors", lambda p: p[0]["sectors"],
             lambda m: m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"]),
            ("global store requests", lambda p: p[1]["requests"],
             lambda m: m["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"]),
            ("global store sectors", lambda p: p[1]["sectors"],
             lambda m: m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
            ("shared bank conflicts (ld+st)",
             lambda p: p[2]["wavefronts"] - p[2]["min_wavefronts"],
             lambda m: m[SHARED_CONFLICTS + "ld.sum"] + m[SHARED_CONFLICTS + "st.sum"])):
        rows.append((what, agree([model(p) for p in pairs], [hw(p[3]) for p in pairs]),
                     len(pairs)))
    waved = [p for p in pairs
             if SHARED_WAVES + "ld.sum" in p[3] and SHARED_WAVES + "st.sum" in p[3]]
    if waved:
        rows.append(("shared wavefronts (ld+st)",
                     agree([p[2]["wavefronts"] for p in waved],
                           [p[3][SHARED_WAVES + "ld.sum"] + p[3][SHARED_WAVES + "st.sum"]
                            for p in waved]), len(waved)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--traffic")
    ap.add_argument("--ncu")
    ap.add_argument("--json")
    ap.add_argument("--shape", action="append")
    ap.add_argument("--dtype", default="bf16,fp32,fp64")
    ap.add_argument("--sample", type=int, default=16)
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument("--check", default="")
    a = ap.parse_args()
    checks = set(CHECKS) if a.check == "all" else {c for c in a.check.split(",") if c}
    if checks - set(CHECKS):
        sys.exit(f"cuda_model: unknown check(s) {sorted(checks - set(CHECKS))}; expected {CHECKS}")
    if "spills" in checks and a.no_ptxas:
        sys.exit("cuda_model: --check spills needs ptxas")
    shapes = a.shape or SHAPES
    if a.traffic:
        with open(a.traffic) as f:
            traffic = json.load(f)
    else:
        traffic = run_traffic(a.build, shapes, a.dtype, a.sample)
    resources = {} if a.no_ptxas else ptxas_resources(a.build)
    ncu = read_ncu(a.ncu)
    d = DEVICE
    cases = []
    print(f"scaleref speed model (a prediction, not a measurement) for {d['name']}: "
          f"{d['sms']} SMs, L2 {d['l2_bytes'] / 1e6:.0f} MB, copy {d['copy_bandwidth_gbs']:.0f} GB/s, "
          f"launch floor {d['launch_floor_us']} us; traffic from the emulator, "
          f"{traffic['sample_blocks']} blocks sampled per launch")
    print(f"{'case':<36} {'bytes/min':>9} {'coal ld/st':>10} {'bank':>5} {'regs':>4} {'spill':>5} "
          f"{'occ':>4} {'waves':>6} {'pred us':>8} {'%copy':>6}  {'ncu us':>7} {'ncu read/model':>14}")
    for c in traffic["cases"]:
        shape = f"{c['rows']}x{c['cols']}"
        launches = [model_launch(l, resources) for l in c["launches"]]
        dram = sum(l["dram_read_bytes"] + l["dram_write_bytes"] for l in launches)
        time_us = sum(l["time_us"] for l in launches)
        copy_us = c["min_bytes"] / (d["copy_bandwidth_gbs"] * 1e3)
        ld = [sum(l["global_load"][k] for l in launches) for k in ("sectors", "min_sectors")]
        st = [sum(l["global_store"][k] for l in launches) for k in ("sectors", "min_sectors")]
        bank = max(l["shared"]["worst_degree"] for l in launches)
        main_l = launches[0]
        res = main_l["resources"] or {}
        spills = sum((l["resources"] or {}).get("spill_stores", 0) for l in launches)
        meas = [measured(ncu, shape, l) for l in launches]
        ncu_us = sum(m["gpu__time_duration.sum"] / 1e3 for m in meas) if meas and all(meas) else None
        # reads only: what a kernel writes may still sit in L2 when it ends,
        # which ncu does not count; the model counts every write-back
        ncu_dram = (sum(m["dram__bytes_read.sum"] for m in meas) if meas and all(meas) else None)
        dram_read = sum(l["dram_read_bytes"] for l in launches)
        row = {"op": c["op"], "dir": c["dir"], "dtype": c["dtype"], "rows": c["rows"],
               "cols": c["cols"], "min_bytes": c["min_bytes"], "modelled_dram_bytes": dram,
               "bytes_over_min": dram / c["min_bytes"],
               "coalescing_load": ld[1] / ld[0] if ld[0] else 1.0,
               "coalescing_store": st[1] / st[0] if st[0] else 1.0,
               "worst_bank_conflict": bank, "spill_bytes": spills,
               "predicted_us": time_us, "fraction_of_copy": copy_us / time_us,
               "modelled_dram_read_bytes": dram_read,
               "measured_us": ncu_us, "measured_dram_read_bytes": ncu_dram, "launches": launches}
        if ncu_us is not None:
            for l, m in zip(launches, meas):
                l["measured"] = m
        cases.append(row)
        label = f"{c['op']} {c['dir']} {c['dtype']} {shape}"
        meas_text = (f"{ncu_us:7.1f} {ncu_dram / dram_read:14.2f}" if ncu_us is not None else
                     f"{'-':>7} {'-':>14}")
        print(f"{label:<36} {row['bytes_over_min']:9.2f} {row['coalescing_load']:5.2f}/"
              f"{row['coalescing_store']:4.2f} {bank:5.1f} {res.get('registers', 0):4d} "
              f"{spills:5d} {main_l['theoretical_occupancy']:4.2f} {main_l['waves']:6.2f} "
              f"{time_us:8.1f} {100 * row['fraction_of_copy']:5.1f}%  {meas_text}")
    # the counters against the hardware's, launch by launch, where ncu saw it
    pairs = [(l["global_load"], l["global_store"], l["shared"], l["measured"])
             for c in cases for l in c["launches"] if "measured" in l]
    if pairs:
        print(f"\nagainst Nsight Compute ({a.ncu}), {len(pairs)} launches: counts within 1% of the hardware's:")
        for what, agreeing, compared in counter_agreement(pairs):
            print(f"  {what:<30} {agreeing:4d} of {compared}")
        timed = [c for c in cases if c["measured_us"]]
        ratios = sorted(c["measured_us"] / c["predicted_us"] for c in timed)
        print(f"  measured / predicted time, {len(timed)} cases: median {ratios[len(ratios) // 2]:.2f}, "
              f"range {ratios[0]:.2f}-{ratios[-1]:.2f}")
        for what, (median, lo, hi, within, n) in dram_agreement(timed).items():
            print(f"  measured / modelled DRAM bytes {what}: median {median:.2f}, range {lo:.2f}-{hi:.2f}, "
                  f"within 10% in {within} of {n} cases")
    failed = [m for c in cases for m in misses(c, checks)]
    if checks:
        print(f"\ncheck ({', '.join(sorted(checks))}): {len(cases)} cases, {len(failed)} misses")
        for m in failed:
            print(f"  MISS {m}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"schema": "scaleref.cuda_model/1", "device": DEVICE,
                       "sample_blocks": traffic["sample_blocks"], "ncu": a.ncu, "cases": cases},
                      f, indent=1)
        print(f"cuda_model: wrote {a.json}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
