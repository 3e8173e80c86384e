#!/usr/bin/env python3
"""Plots for examples/sdd.cpp (Scale-Distribution Decoupling, sdd Fig. 7 / Table 2).

usage: plot_sdd.py OUT_DIR DOCS_DIR

Reads OUT_DIR/run_<label>.csv (the trainer's logs) and OUT_DIR/summary.csv, writes
  DOCS_DIR/sdd_grad_layers.png  per-layer gradient norms at a few steps, one panel per run
  DOCS_DIR/sdd_training.png     training loss and gradient spread across layers vs step
"""
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from plot_support import num, read_rows  # noqa: E402

RUNS = [
    ("pre_plain_lr1x", "Pre-Norm, plain, lr 1x", "tab:gray"),
    ("post_plain_lr1x", "Post-Norm, plain, lr 1x", "tab:blue"),
    ("post_sdd_lr1x", "Post-Norm + SDD, lr 1x", "tab:orange"),
    ("post_plain_lr5x", "Post-Norm, plain, lr 5x", "tab:purple"),
    ("post_sdd_lr5x", "Post-Norm + SDD, lr 5x", "tab:red"),
]




def layer_grads(row):
    keys = sorted((k for k in row if k.startswith("grad_norm.layers.")),
                  key=lambda k: int(k.rsplit(".", 1)[1]))
    return [num(row[k]) for k in keys]


def smooth(values, window):
    out = []
    for i in range(len(values)):
        lo = max(0, i - window + 1)
        chunk = [v for v in values[lo:i + 1] if not math.isnan(v)]
        out.append(sum(chunk) / len(chunk) if chunk else math.nan)
    return out


def main():
    out_dir, docs_dir = sys.argv[1], sys.argv[2]
    os.makedirs(docs_dir, exist_ok=True)
    runs = {}
    for label, _, _ in RUNS:
        path = os.path.join(out_dir, f"run_{label}.csv")
        if os.path.exists(path):
            runs[label] = [r for r in read_rows(path) if r["step"] != "0"]
    summary = {r["label"]: r for r in read_rows(os.path.join(out_dir, "summary.csv"))}
    unigram = num(next(iter(summary.values()))["unigram_loss"])

    # 1. Per-layer gradient norms at a few steps (sdd Fig. 7's view), one panel per run.
    panels = [lab for lab, _, _ in RUNS if lab in runs]
    fig, axes = plt.subplots(1, len(panels), figsize=(3.3 * len(panels), 3.8), sharey=True)
    last_step = max(int(r["step"]) for rows in runs.values() for r in rows)
    wanted = sorted({1, 10, 50, last_step // 2, last_step})
    cmap = plt.get_cmap("viridis")
    for ax, label in zip(axes, panels):
        by_step = {int(r["step"]): r for r in runs[label]}
        for i, step in enumerate(wanted):
            if step not in by_step:
                continue
            g = layer_grads(by_step[step])
            ax.plot(range(1, len(g) + 1), g, marker="o", ms=3,
                    color=cmap(i / max(1, len(wanted) - 1)), label=f"step {step}")
        title = dict((lab, t) for lab, t, _ in RUNS)[label]
        ax.set_title(title, fontsize=9)
        ax.set_yscale("log")
        ax.set_xlabel("decoder layer (1 = next to the embedding)")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("gradient norm of the layer's parameters")
    axes[-1].legend(fontsize=8)
    fig.suptitle("Per-layer gradient norms (sdd Fig. 7's view): Post-Norm at 5x lr vanishes "
                 "towards the input; SDD stays within a narrow band", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(docs_dir, "sdd_grad_layers.png"), dpi=110)
    plt.close(fig)

    # 2. Loss and gradient spread across layers vs step.
    fig, (ax_loss, ax_spread) = plt.subplots(1, 2, figsize=(12, 4.3))
    for label, title, color in RUNS:
        if label not in runs:
            continue
        rows = runs[label]
        steps = [int(r["step"]) for r in rows]
        loss = smooth([num(r["loss"]) for r in rows], 10)
        style = "--" if "5x" in label else "-"
        ax_loss.plot(steps, loss, style, color=color, label=title)
        spreads = []
        for r in rows:
            g = layer_grads(r)
            spreads.append(max(g) / min(g) if min(g) > 0 else math.nan)
        ax_spread.plot(steps, spreads, style, color=color, label=title)
    ax_loss.axhline(unigram, color="k", lw=0.8, ls=":", label=f"unigram baseline {unigram:.2f}")
    ax_loss.set_xlabel("step")
    ax_loss.set_ylabel("training loss (moving mean of 10 steps)")
    ax_loss.set_title("Training loss: plain Post-Norm at 5x lr stalls at the unigram baseline")
    ax_loss.legend(fontsize=8)
    ax_loss.grid(True, alpha=0.3)
    ax_spread.set_yscale("log")
    ax_spread.set_xlabel("step")
    ax_spread.set_ylabel("max over layers / min over layers of |grad|")
    ax_spread.set_title("Gradient spread across the layers (1 = balanced)")
    ax_spread.legend(fontsize=8)
    ax_spread.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(docs_dir, "sdd_training.png"), dpi=110)
    plt.close(fig)
    print(f"plot_sdd: wrote sdd_grad_layers.png, sdd_training.png to {docs_dir}")


if __name__ == "__main__":
    main()
