#!/usr/bin/env python3
"""Plots for examples/seednorm.cpp (SeeDNorm vs RMSNorm vs DyT, seednorm eq. 5 and 29).

usage: plot_seednorm.py OUT_DIR DOCS_DIR

Reads OUT_DIR/scale_sweep.csv and OUT_DIR/run_<norm>.csv, writes
  DOCS_DIR/seednorm_scale.png     output RMS and gradient norms as the input scale k sweeps
  DOCS_DIR/seednorm_training.png  the tiny LM's loss curves with each norm
"""
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_support import num, read_rows  # noqa: E402

NORMS = [("rmsnorm", "RMSNorm", "tab:blue"), ("dyt", "DyT", "tab:green"),
         ("seednorm", "SeeDNorm", "tab:red")]
# RMSNorm is drawn wide and pale so that SeeDNorm's line, which coincides with it
# wherever tanh(k x . beta) ~ 0, does not hide it.
STYLE = {"rmsnorm": dict(lw=4, alpha=0.45), "dyt": dict(lw=1.6), "seednorm": dict(lw=1.6)}




def main():
    out_dir, docs_dir = sys.argv[1], sys.argv[2]
    os.makedirs(docs_dir, exist_ok=True)

    # 1. The scale sweep.
    rows = read_rows(os.path.join(out_dir, "scale_sweep.csv"))
    k = [num(r["k"]) for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.4))
    ax = axes[0]
    for key, name, color in NORMS:
        ax.plot(k, [num(r[f"{key}_out_rms"]) for r in rows], color=color, label=name, **STYLE[key])
    ax.plot(k, [num(r["seednorm_tanh_abs"]) for r in rows], ":", color="tab:red",
            label="SeeDNorm: mean |tanh(k x . beta)|")
    ax.set_xscale("log")
    ax.set_xlabel("input scale k (input = k x)")
    ax.set_ylabel("RMS of the output")
    ax.set_title("Output (eq. 5): RMSNorm flat, SeeDNorm bounded\nbut scale-aware, "
                 "DyT fades / clips", fontsize=10)
    ax.axvspan(k[0], 1e-3, color="0.9", label="eps = 1e-6 dominates RMS(k x)")
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)

    ax = axes[1]
    for key, name, color in NORMS:
        ax.plot(k, [num(r[f"{key}_grad_x"]) for r in rows], color=color, label=name, **STYLE[key])
    ref = num(rows[len(rows) // 2]["rmsnorm_grad_x"])
    ax.plot(k, [ref / kk for kk in k], "k--", lw=0.8, label="slope 1/k (eq. 29)")
    ax.axvspan(k[0], 1e-3, color="0.9")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("input scale k")
    ax.set_ylabel("|dL/dx| (fixed upstream gradient)")
    ax.set_title("Input gradient (eq. 29): ~1/k for RMSNorm and SeeDNorm (plus a beta\n"
                 "term tanh' switches off); DyT's vanishes for large k", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)

    ax = axes[2]
    for key, name, color in NORMS:
        ax.plot(k, [num(r[f"{key}_grad_params"]) for r in rows], color=color,
                label=f"{name}: all parameters", **STYLE[key])
    ax.plot(k, [num(r["seednorm_grad_beta"]) for r in rows], ":", color="tab:red",
            label="SeeDNorm: beta alone")
    ax.axvspan(k[0], 1e-3, color="0.9")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("input scale k")
    ax.set_ylabel("norm of the parameters' gradient")
    ax.set_title("Parameter gradients: SeeDNorm's beta gradient grows with k\n"
                 "until tanh saturates, then tanh' cuts it off", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(docs_dir, "seednorm_scale.png"), dpi=110)
    plt.close(fig)

    # 2. Training curves.
    fig, (ax_tr, ax_val) = plt.subplots(1, 2, figsize=(12, 4.3))
    unigram = math.nan
    for key, name, color in NORMS:
        path = os.path.join(out_dir, f"run_{key}.csv")
        if not os.path.exists(path):
            continue
        run = [r for r in read_rows(path)]
        train = [r for r in run if r["loss"]]
        steps = [int(r["step"]) for r in train]
        loss = [num(r["loss"]) for r in train]
        window = 10
        smooth = [sum(loss[max(0, i - window + 1):i + 1]) / len(loss[max(0, i - window + 1):i + 1])
                  for i in range(len(loss))]
        ax_tr.plot(steps, smooth, color=color, label=name)
        val = [r for r in run if r["val_loss"]]
        ax_val.plot([int(r["step"]) for r in val], [num(r["val_loss"]) for r in val], "o-",
                    ms=3, color=color, label=name)
    summary = read_rows(os.path.join(out_dir, "summary.csv"))
    if summary:
        unigram = num(summary[0]["unigram_loss"])
    for ax in (ax_tr, ax_val):
        ax.axhline(unigram, color="k", lw=0.8, ls=":", label=f"unigram baseline {unigram:.2f}")
        ax.set_xlabel("step")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    ax_tr.set_ylabel("training loss (moving mean of 10 steps)")
    ax_tr.set_title("Tiny LM (Pre-Norm, kv_recall task): training loss")
    ax_val.set_ylabel("validation loss")
    ax_val.set_title("Validation loss (same data, steps and seed)")
    fig.tight_layout()
    fig.savefig(os.path.join(docs_dir, "seednorm_training.png"), dpi=110)
    plt.close(fig)
    print(f"plot_seednorm: wrote seednorm_scale.png, seednorm_training.png to {docs_dir}")


if __name__ == "__main__":
    main()
