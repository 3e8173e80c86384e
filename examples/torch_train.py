#!/usr/bin/env python3
"""Training a small decoder-only transformer in PyTorch with scaleref.torch's layers.

A character-level language model on a short text embedded below (no downloads): token and
position embeddings, causal multi-head self-attention and a GELU MLP in pre-norm residual
blocks, a final norm and a linear head. The norms are scaleref.torch modules (--norm:
SeeDNorm, RMSNorm, DyT or LayerNorm); the blocks' linear maps are SDDLinear (--linear sdd; the
output projections with alpha_init = 1/sqrt(layers), as the SDD paper scales them) or
nn.Linear. The optimizer is AdamW over scaleref.torch.param_groups, the papers' weight-decay
groups (SeeDNorm's alpha and beta decayed, its gamma not; SDD's V and alpha decayed; other
modules' matrices decayed, their biases and gains not).

--compare trains, from the same initial weights and on the same batches, the same model with
plain torch norms: nn.LayerNorm for layernorm, a hand-written RMSNorm for rmsnorm and seednorm,
a hand-written DyT for dyt. SeeDNorm starts as RMSNorm (beta = 0, so tanh(x . beta) = 0), so
the two curves start together and part as beta and alpha learn; for the other norms the plain
module computes the same function, so the curves overlap (a check of scaleref's forward and
backward against torch's autograd).

On CPU tensors scaleref's operators run the double-precision reference (the results rounded to
float32), which is slow: --quick keeps the model tiny.

    PYTHONPATH=build/python python3 examples/torch_train.py --quick
    PYTHONPATH=build/python python3 examples/torch_train.py --norm seednorm --linear sdd --compare

(python3: one with torch and matplotlib, e.g. Debian's /usr/bin/python3.) Writes loss.csv
(step, then one loss column per run) and loss.png to --out.
"""

import argparse
import csv
import math
import os
import time

import torch
import torch.nn.functional as F

import scaleref.torch as st

TEXT = """\
The scale of a network's activations drifts as it trains. A normalization layer pins it:
RMSNorm divides each row by its root mean square, LayerNorm also removes the mean, and a
learned gain puts back the scale the next layer wants. SeeDNorm lets that gain depend on the
input itself, through a tanh of the row's dot product with a learned vector, so that the
layer keeps some knowledge of the scale it removed. Scale-distribution decoupling does the
same for a linear map: it normalizes the product of the input with the weight, and a learned
vector of scales sets the size of each output. Weight decay pulls the weights toward zero,
and the papers say which of these vectors should feel it and which should not.
"""


class RMSNormPlain(torch.nn.Module):
    """gamma (.) x / sqrt(mean(x^2) + eps), in torch operations (autograd's backward)."""

    def __init__(self, d, eps):
        super().__init__()
        self.eps = eps
        self.gamma = torch.nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.gamma * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class DyTPlain(torch.nn.Module):
    """gamma (.) tanh(alpha x) + beta, in torch operations."""

    def __init__(self, d, alpha_init):
        super().__init__()
        self.alpha = torch.nn.Parameter(torch.full((1,), alpha_init))
        self.gamma = torch.nn.Parameter(torch.ones(d))
        self.beta = torch.nn.Parameter(torch.zeros(d))

    def forward(self, x):
        return self.gamma * torch.tanh(self.alpha * x) + self.beta


def make_norm(kind, d, plain):
    """A scaleref norm, or (plain) its torch counterpart with the same eps / alpha_init."""
    ours = {"seednorm": st.SeeDNorm, "rmsnorm": st.RMSNorm, "dyt": st.DyT,
            "layernorm": st.LayerNorm}[kind](d)
    if not plain:
        return ours
    if kind == "layernorm":
        return torch.nn.LayerNorm(d, eps=ours.eps)
    if kind == "dyt":
        return DyTPlain(d, ours.alpha_init)
    return RMSNormPlain(d, ours.eps)  # rmsnorm, and the RMSNorm that SeeDNorm starts as


def make_linear(kind, d_in, d_out, alpha_init=1.0):
    if kind == "sdd":
        return st.SDDLinear(d_in, d_out, alpha_init=alpha_init)
    return torch.nn.Linear(d_in, d_out, bias=False)


class Block(torch.nn.Module):
    """x + attention(norm(x)), then x + MLP(norm(x)), attention causal."""

    def __init__(self, d, heads, norm, linear, plain_norms, layers):
        super().__init__()
        self.heads = heads
        out_scale = 1.0 / math.sqrt(layers)  # SDD's alpha on a block's output projections
        self.norm1 = make_norm(norm, d, plain_norms)
        self.q, self.k, self.v = (make_linear(linear, d, d) for _ in range(3))
        self.o = make_linear(linear, d, d, out_scale)
        self.norm2 = make_norm(norm, d, plain_norms)
        self.up = make_linear(linear, d, 4 * d)
        self.down = make_linear(linear, 4 * d, d, out_scale)

    def attention(self, x):
        b, t, d = x.shape

        def split(z):  # [b, t, d] -> [b, heads, t, d / heads]
            return z.view(b, t, self.heads, d // self.heads).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        future = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        att = scores.masked_fill(future, float("-inf")).softmax(-1)
        return self.o((att @ v).transpose(1, 2).reshape(b, t, d))

    def forward(self, x):
        x = x + self.attention(self.norm1(x))
        return x + self.down(F.gelu(self.up(self.norm2(x))))


class TinyLM(torch.nn.Module):
    def __init__(self, vocab, seq, d, heads, layers, norm, linear, plain_norms):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d)
        self.position = torch.nn.Embedding(seq, d)
        self.blocks = torch.nn.ModuleList(
            Block(d, heads, norm, linear, plain_norms, layers) for _ in range(layers)
        )
        self.norm = make_norm(norm, d, plain_norms)
        self.head = torch.nn.Linear(d, vocab, bias=False)

    def forward(self, tokens):
        x = self.embed(tokens) + self.position(torch.arange(tokens.shape[1], device=tokens.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x))


def train(args, data, vocab, plain_norms):
    """Trains one model; returns its loss at each step. The seeds make the initial weights
    (scaleref's norms draw nothing at random) and the batches the same for every run."""
    torch.manual_seed(args.seed)
    model = TinyLM(vocab, args.seq, args.d_model, args.heads, args.layers, args.norm, args.linear,
                   plain_norms).to(args.device)
    # others="matrices": a plain module's weights are decayed, its biases and gains not, as
    # scaleref's own norms' gains are not.
    groups = st.param_groups(model, args.weight_decay, others="matrices")
    opt = torch.optim.AdamW(groups, lr=args.lr)
    batches = torch.Generator().manual_seed(args.seed + 1)
    losses = []
    for step in range(args.steps):
        start = torch.randint(len(data) - args.seq - 1, (args.batch,), generator=batches)
        window = torch.stack([data[s : s + args.seq + 1] for s in start.tolist()]).to(args.device)
        logits = model(window[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, vocab), window[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % args.log_every == 0 or step == args.steps - 1:
            print(f"  step {step:4d}  loss {losses[-1]:.4f}")
    return losses


def write_outputs(out, runs):
    os.makedirs(out, exist_ok=True)
    labels = list(runs)
    with open(os.path.join(out, "loss.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["step"] + labels)
        for step, row in enumerate(zip(*runs.values())):
            w.writerow([step] + [f"{v:.6f}" for v in row])
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"wrote {out}/loss.csv (no matplotlib: no plot)")
        return
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, losses in runs.items():
        ax.plot(losses, label=label, lw=1.6)
    ax.set_xlabel("step")
    ax.set_ylabel("training loss (cross-entropy, nats)")
    ax.set_title("Tiny character-level transformer")
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, "loss.png"), dpi=120)
    plt.close(fig)
    print(f"wrote {out}/loss.csv and loss.png")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--norm", choices=["seednorm", "rmsnorm", "dyt", "layernorm"],
                   default="seednorm")
    p.add_argument("--linear", choices=["sdd", "plain"], default="sdd")
    p.add_argument("--compare", action="store_true",
                   help="also train the same model with plain torch norms")
    p.add_argument("--quick", action="store_true", help="tiny sizes, seconds on a CPU")
    p.add_argument("--steps", type=int, help="default 30 (--quick) or 300")
    p.add_argument("--d-model", type=int, help="default 32 (--quick) or 64")
    p.add_argument("--seq", type=int, help="default 16 (--quick) or 32")
    p.add_argument("--batch", type=int, help="default 8 (--quick) or 16")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-2)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--out", default=os.path.join(root, "build", "examples", "out", "torch_train"))
    args = p.parse_args()
    sizes = {"steps": (30, 300), "d_model": (32, 64), "seq": (16, 32), "batch": (8, 16)}
    for name, (quick, full) in sizes.items():
        if getattr(args, name) is None:
            setattr(args, name, quick if args.quick else full)

    chars = sorted(set(TEXT))
    data = torch.tensor([chars.index(c) for c in TEXT])
    print(f"{len(TEXT)} characters, vocabulary {len(chars)} (uniform guess: "
          f"{math.log(len(chars)):.3f} nats); d_model {args.d_model}, seq {args.seq}, "
          f"batch {args.batch}, {args.steps} steps on {args.device}")
    runs = {}
    variants = [False, True] if args.compare else [False]
    for plain in variants:
        label = f"{args.norm} ({'torch' if plain else 'scaleref'}), linear {args.linear}"
        if plain and args.norm == "seednorm":
            label = f"rmsnorm (torch), linear {args.linear}"
        print(label)
        began = time.perf_counter()
        runs[label] = train(args, data, len(chars), plain)
        print(f"  first loss {runs[label][0]:.4f}, last {runs[label][-1]:.4f}, "
              f"{time.perf_counter() - began:.1f} s")
    write_outputs(args.out, runs)


if __name__ == "__main__":
    main()
