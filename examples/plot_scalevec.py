#!/usr/bin/env python3
"""Plots for examples/scalevec.cpp (scale vectors: Theorem 2.2 and IWD).

usage: plot_scalevec.py OUT_DIR DOCS_DIR

Reads OUT_DIR/flow.csv, OUT_DIR/run_<policy>.csv and OUT_DIR/summary_lm.csv, writes
  DOCS_DIR/scalevec_flow.png  Theorem 2.2: loss of the gradient flows, and how g grows
  DOCS_DIR/scalevec_iwd.png   the tiny LM under iwd / decay_all / decay_none
"""
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_support import num, read_rows  # noqa: E402

MODELS = [("without", "without scale vector: W x", "tab:gray"),
          ("with_g", "with g: W diag(g) x", "tab:blue"),
          ("dp", "DP: diag(a) W diag(g) x", "tab:orange"),
          ("md", "MD: g = r u / RMS(u)", "tab:green")]
POLICIES = [("decay_none", "decay_none (no scale vector decayed)", "tab:gray"),
            ("iwd", "iwd (decay g, not a)", "tab:blue"),
            ("decay_all", "decay_all (decay g and a)", "tab:red")]




def main():
    out_dir, docs_dir = sys.argv[1], sys.argv[2]
    os.makedirs(docs_dir, exist_ok=True)

    # 1. Theorem 2.2's gradient flows.
    rows = read_rows(os.path.join(out_dir, "flow.csv"))
    t = [num(r["t"]) for r in rows]
    fig, (ax_l, ax_g) = plt.subplots(1, 2, figsize=(12, 4.3))
    for key, name, color in MODELS:
        ax_l.plot(t, [num(r[f"loss_{key}"]) for r in rows], color=color, label=name)
    ax_l.set_yscale("log")
    ax_l.set_xlabel("gradient-flow time t")
    ax_l.set_ylabel("loss L(t) = 1/2 ||student - W*||_F^2")
    ax_l.set_title("Theorem 2.2: with a scale vector the loss is lower at every t > 0")
    ax_l.legend(fontsize=8)
    ax_l.grid(True, which="both", alpha=0.3)
    ax_g.plot(t, [num(r["g_norm_with_g"]) for r in rows], color="tab:blue", label="RMS(g)")
    ax_g.fill_between(t, [num(r["g_min_with_g"]) for r in rows],
                      [num(r["g_max_with_g"]) for r in rows], color="tab:blue", alpha=0.2,
                      label="min .. max of g_j")
    ax_g.set_xlabel("gradient-flow time t")
    ax_g.set_ylabel("scale vector g of the with-g student")
    ax_g.set_title("g grows from 1 as W grows (g_j^2 - ||w_j||^2 = 1 is conserved),\n"
                   "amplifying W's own updates", fontsize=10)
    ax_g.legend(fontsize=8)
    ax_g.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(docs_dir, "scalevec_flow.png"), dpi=110)
    plt.close(fig)

    # 2. IWD on the tiny LM.
    summary = {r["policy"]: r for r in read_rows(os.path.join(out_dir, "summary_lm.csv"))}
    fig, (ax_v, ax_b) = plt.subplots(1, 2, figsize=(12, 4.3),
                                     gridspec_kw={"width_ratios": [1.6, 1]})
    for key, name, color in POLICIES:
        path = os.path.join(out_dir, f"run_{key}.csv")
        if not os.path.exists(path):
            continue
        val = [r for r in read_rows(path) if r["val_loss"]]
        ax_v.plot([int(r["step"]) for r in val], [num(r["val_loss"]) for r in val], "o-", ms=3,
                  color=color, label=name)
    ax_v.set_xlabel("step")
    ax_v.set_ylabel("validation loss")
    ax_v.set_title("Tiny LM with DP scale vectors: validation loss per decay policy")
    ax_v.legend(fontsize=8)
    ax_v.grid(True, alpha=0.3)
    # zoom on the end of training, where the policies could differ
    ends = [num(s["val_loss_end"]) for s in summary.values()]
    if ends:
        ax_v.set_ylim(min(ends) - 0.05, min(ends) + 0.6)
    labels = [k for k, _, _ in POLICIES if k in summary]
    x = range(len(labels))
    width = 0.38
    ax_b.bar([i - width / 2 for i in x], [num(summary[k]["rms_g_end"]) for k in labels], width,
             label="RMS(g): Input-Norm gains", color="tab:blue")
    ax_b.bar([i + width / 2 for i in x], [num(summary[k]["rms_a_end"]) for k in labels], width,
             label="RMS(a): output-side vectors", color="tab:orange")
    ax_b.axhline(1.0, color="k", lw=0.8, ls=":", label="initial value 1")
    ax_b.set_xticks(list(x))
    ax_b.set_xticklabels(labels)
    ax_b.set_ylabel("RMS at the end of training")
    ax_b.set_title("Where the decay lands")
    lo = min(min(num(summary[k]["rms_g_end"]), num(summary[k]["rms_a_end"])) for k in labels)
    hi = max(max(num(summary[k]["rms_g_end"]), num(summary[k]["rms_a_end"])) for k in labels)
    ax_b.set_ylim(min(lo, 1.0) - 0.1, max(hi, 1.0) + 0.1)
    ax_b.legend(fontsize=8)
    ax_b.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(docs_dir, "scalevec_iwd.png"), dpi=110)
    plt.close(fig)
    print(f"plot_scalevec: wrote scalevec_flow.png, scalevec_iwd.png to {docs_dir}")


if __name__ == "__main__":
    main()
