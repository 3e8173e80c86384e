#!/usr/bin/env python3
"""Plots for examples/rescale.cpp (rescale paper Fig. 1, 3, 5b, 13 on the tiny LM).

usage: plot_rescale.py OUT_DIR DOCS_DIR
Reads OUT_DIR/run_sigma<s>_<variant>.csv (the trainer's CSV) and writes
DOCS_DIR/rescale_std.png (std of the first and last layer's FFN down projection
over training) and DOCS_DIR/rescale_max_act.png (max |x_l| per layer at the end).
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FormatStrFormatter  # noqa: E402

SIGMAS = ["0.006", "0.02"]
VARIANTS = [("baseline", "baseline", "tab:blue"), ("lir", "LIR", "tab:orange"),
            ("tvr", "TVR", "tab:green"), ("lir_tvr", "LIR + TVR", "tab:red")]
STYLE = {"0.006": "-", "0.02": "--"}  # the max-activation plot
TVR_TARGET = 0.01


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return rows


def series(rows, col):
    xs, ys = [], []
    for r in rows:
        if r[col] != "":
            xs.append(int(r["step"]))
            ys.append(float(r[col]))
    return xs, ys


def main():
    out, docs = sys.argv[1], sys.argv[2]
    os.makedirs(docs, exist_ok=True)
    runs = {}
    for s in SIGMAS:
        for key, _, _ in VARIANTS:
            runs[(s, key)] = read(os.path.join(out, f"run_sigma{s}_{key}.csv"))
    n_layers = sum(1 for c in runs[(SIGMAS[0], "baseline")][0] if c.startswith("max_act.x")) - 1

    # 1. std(W_down) over training, first and last layer: top row without TVR
    # (Fig. 1 and 3: baseline and LIR), bottom row with TVR (Fig. 5b)
    colors = {"0.006": "tab:blue", "0.02": "tab:orange"}
    rows_of = [("without TVR (rescale Fig. 1, 3)", [("baseline", "baseline", "-"), ("lir", "LIR", "--")]),
               ("with TVR every 50 steps (rescale Fig. 5b)",
                [("tvr", "TVR", "-"), ("lir_tvr", "LIR + TVR", "--")])]
    fig, axes = plt.subplots(2, 2, figsize=(12, 8), sharey=True, sharex=True)
    for row, (row_title, variants) in enumerate(rows_of):
        for c, layer in enumerate([0, n_layers - 1]):
            ax = axes[row][c]
            col = f"std.layers.{layer}.ffn.down.W"
            for s in SIGMAS:
                for key, label, style in variants:
                    xs, ys = series(runs[(s, key)], col)
                    ax.plot(xs, ys, style, color=colors[s], lw=1.7,
                            label=f"σ_init {s}, {label}")
            if row == 1:
                ax.axhline(TVR_TARGET, color="gray", lw=0.8, ls=":")
                ax.text(xs[-1], TVR_TARGET * 0.93, "σ_target", color="gray", fontsize=8,
                        ha="right", va="top")
            ax.set_title(f"layer {layer + 1} of {n_layers} FFN down, {row_title}", fontsize=10)
            ax.set_yscale("log")
            ax.set_yticks([0.003, 0.005, 0.01, 0.02, 0.03])
            ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
            ax.yaxis.set_minor_formatter(FormatStrFormatter(""))
            ax.grid(alpha=0.3, which="both")
            if c == 0:
                ax.set_ylabel("std(W)")
            if row == 1:
                ax.set_xlabel("optimizer step")
        axes[row][1].legend(fontsize=8, loc="lower right")
    fig.suptitle("Weight std during training, tiny LM (AdamW lr 3e-3, weight decay 0.3)")
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "rescale_std.png"), dpi=110)
    plt.close(fig)

    # 2. max |x_l| per layer at the end of training
    fig, ax = plt.subplots(figsize=(8, 5))
    layers = list(range(n_layers + 1))
    for s in SIGMAS:
        for key, label, color in VARIANTS:
            last = runs[(s, key)][-1]
            ys = [float(last[f"max_act.x{l}"]) for l in layers]
            ax.plot(layers, ys, STYLE[s], marker="o", color=color, lw=1.6,
                    label=f"σ_init {s}, {label}")
    ax.set_xticks(layers)
    ax.set_xticklabels(["x0 (embed)"] + [f"x{l}" for l in layers[1:]])
    ax.set_xlabel("residual stream after layer l")
    ax.set_ylabel("max |x_l| over the last batch")
    ax.set_yscale("log")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8, ncol=2)
    ax.set_title("Max activation per layer at the end of training (rescale Fig. 13)\n"
                 "solid: σ_init 0.006, dashed: σ_init 0.02", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(docs, "rescale_max_act.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
