#!/usr/bin/python3
"""PyTorch's CPU float64 timing of the tiny LM's training step, for comparison
with scaleref_lm_bench (reference/bench/lm_bench.cpp) on the same machine.

The model is scaleref's default LM (reference/include/scaleref/lm/config.hpp)
rebuilt in PyTorch: learned token and position embeddings, Pre-Norm RMSNorm
(eps 1e-6, gain), causal multi-head attention without biases, SwiGLU FFN of
width 4 d, final RMSNorm, untied head, mean cross-entropy. Same shapes as the
C++ benchmark: d_model 128, 4 layers, 4 heads, sequence 128, batch 16,
vocab 256, float64, the thread count of OMP_NUM_THREADS (default: all cores).

    scripts/bench_lm_torch.py [--reps 20] [--warmup 3]

Needs Debian's python3-torch and, for a fair comparison, an optimized BLAS
under it (libopenblas0-pthread; without it Debian's torch falls back to the
reference BLAS): scripts/bench_lm.sh installs both and runs this script and
scaleref_lm_bench one after the other. Not part of the default install.
Prints one line per measurement: median and spread over reps.
"""
import argparse
import math
import os
import statistics
import time

import torch
import torch.nn.functional as F

D, LAYERS, HEADS, T, B, VOCAB = 128, 4, 4, 128, 16, 256


class RMSNorm(torch.nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.gamma = torch.nn.Parameter(torch.ones(d, dtype=torch.float64))

    def forward(self, x):
        return self.gamma * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        lin = lambda i, o: torch.nn.Linear(i, o, bias=False, dtype=torch.float64)
        self.attn_norm, self.ffn_norm = RMSNorm(D), RMSNorm(D)
        self.q, self.k, self.v, self.o = lin(D, D), lin(D, D), lin(D, D), lin(D, D)
        self.gate, self.up, self.down = lin(D, 4 * D), lin(D, 4 * D), lin(4 * D, D)
        self.register_buffer("mask", torch.ones(T, T, dtype=torch.bool).triu(1))

    def attention(self, u):
        b, t, _ = u.shape
        split = lambda z: z.view(b, t, HEADS, D // HEADS).transpose(1, 2)
        q, k, v = split(self.q(u)), split(self.k(u)), split(self.v(u))
        s = (q @ k.transpose(-1, -2)) / math.sqrt(D // HEADS)
        s = s.masked_fill(self.mask[:t, :t], float("-inf"))
        o = torch.softmax(s, dim=-1) @ v
        return self.o(o.transpose(1, 2).reshape(b, t, D))

    def forward(self, x):
        h = x + self.attention(self.attn_norm(x))
        u = self.ffn_norm(h)
        return h + self.down(F.silu(self.gate(u)) * self.up(u))


class LM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, D, dtype=torch.float64)
        self.pos = torch.nn.Embedding(T, D, dtype=torch.float64)
        self.layers = torch.nn.ModuleList(Block() for _ in range(LAYERS))
        self.final_norm = RMSNorm(D)
        self.head = torch.nn.Linear(D, VOCAB, bias=False, dtype=torch.float64)

    def forward(self, tokens, targets):
        x = self.embed(tokens) + self.pos(torch.arange(tokens.shape[1]))
        for layer in self.layers:
            x = layer(x)
        logits = self.head(self.final_norm(x))
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


def timed(fn, reps, warmup):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def report(name, times):
    med = statistics.median(times)
    print(f"torch {name}: median {med * 1e3:.1f} ms (min {min(times) * 1e3:.1f}, "
          f"max {max(times) * 1e3:.1f}) over {len(times)} reps, "
          f"{B * T / med:.0f} tokens/s")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    args = ap.parse_args()
    threads = int(os.environ.get("OMP_NUM_THREADS", os.cpu_count()))
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = LM()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1)
    tokens = torch.randint(0, VOCAB, (B, T))
    targets = torch.randint(0, VOCAB, (B, T))
    print(f"torch {torch.__version__}, float64, {threads} threads, d_model {D}, "
          f"{LAYERS} layers, {HEADS} heads, seq {T}, batch {B}, vocab {VOCAB}")

    def fwd_bwd():
        model.zero_grad(set_to_none=True)
        model(tokens, targets).backward()

    def step():
        opt.zero_grad(set_to_none=True)
        model(tokens, targets).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    report("forward+backward", timed(fwd_bwd, args.reps, args.warmup))
    report("training step (AdamW, clip)", timed(step, args.reps, args.warmup))


if __name__ == "__main__":
    main()
