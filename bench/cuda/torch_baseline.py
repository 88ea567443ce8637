"""bench/cuda/torch_baseline.py -- the PyTorch side-by-side baseline for `shido bench nn --backend
cuda`: the same architectures as weights/synth.c builds (KataGo b6c96 v8, b18c384nbt and
b28c512nbt v15 nested bottlenecks with global pooling, b10c384h6nbttf: KaTrain 1.20's net's
shape, nested bottlenecks holding attention and SwiGLU feed-forward blocks with learned rotary
encodings and an RMS-norm trunk tip; Leela Zero 40x256), random weights (speed only), fp16,
channels_last, cuDNN with benchmark mode, attention by scaled_dot_product_attention (flash
kernels where PyTorch has them), timed in evaluations per second at the same batch sizes on
full 19x19 boards (board mask of ones, still multiplied in as KataGo does).

Variants, cheapest first so that a short budget still gives the main numbers:
  eager        plain module calls
  eager+graph  the same captured once in a CUDA graph per batch size (no launch overhead)
  compile      torch.compile(mode="reduce-overhead"), where it works and the budget allows

Prints one markdown row per measurement as it goes and rewrites --json after each one, so a run
cut short by its time limit keeps what it measured. torch is imported inside main (the machine
that checks this file has no torch). flops_per_eval() is also used by summarize.py.
"""
import argparse
import json
import sys
import time

# The standard nets, with the shapes tools/bench_nn.c passes to synth_kata / synth_lz.
NETS = {
    "b6c96": dict(kind="kata", version=8, nested=False, blocks=6, trunk=96, mid=96, regular=64,
                  gpool=32, gpool_every=3, initial_kernel=5, p1=32, g1=32, v1=32, v2=64,
                  act="relu"),
    "b18c384nbt": dict(kind="kata", version=15, nested=True, blocks=18, trunk=384, mid=192,
                       regular=128, gpool=64, gpool_every=3, initial_kernel=3, p1=48, g1=48,
                       v1=96, v2=128, act="mish"),
    "b28c512nbt": dict(kind="kata", version=15, nested=True, blocks=28, trunk=512, mid=256,
                       regular=192, gpool=64, gpool_every=3, initial_kernel=3, p1=64, g1=64,
                       v1=128, v2=144, act="mish"),
    "b10c384h6nbttf": dict(kind="kata", version=15, nested=True, blocks=10, trunk=384, mid=192,
                           regular=144, gpool=48, gpool_every=0, initial_kernel=3, p1=48, g1=48,
                           v1=96, v2=96, act="silu", heads=6, ffn=512),
    "lz40x256": dict(kind="lz", blocks=40, filters=256),
}

# How `shido bench nn` names the same synthetic nets (a substring of its net column).
SHIDO_NAMES = {"b6c96": "kata-b6c96", "b18c384nbt": "kata-b18c384nbt",
               "b28c512nbt": "kata-b28c512nbt", "b10c384h6nbttf": "kata-b10c384h6nbttf",
               "lz40x256": "lz-b40c256"}

POINTS = 19 * 19
KATA_SPATIAL, KATA_GLOBAL = 22, 19
LZ_PLANES = 18


def conv_flops(k, c_in, c_out):
    return 2 * POINTS * k * k * c_in * c_out


def kata_block_flops(c, mid, regular, gpool_c, gpool):
    if gpool:
        return conv_flops(3, c, regular) + conv_flops(3, c, gpool_c) + conv_flops(3, regular, c)
    return conv_flops(3, c, mid) + conv_flops(3, mid, c)


def flops_per_eval(name):
    """Multiply-add flops (x2) of one 19x19 evaluation: convolutions and fully connected layers."""
    s = NETS[name]
    if s["kind"] == "lz":
        f = s["filters"]
        return (conv_flops(3, LZ_PLANES, f) + 2 * s["blocks"] * conv_flops(3, f, f) +
                conv_flops(1, f, 2) + conv_flops(1, f, 1) +
                2 * (2 * POINTS * (POINTS + 1) + POINTS * 256 + 256))
    total = conv_flops(s["initial_kernel"], KATA_SPATIAL, s["trunk"])
    for i in range(s["blocks"]):
        if s.get("heads"):
            # two attention blocks (q, k, v, out projections; q k^T and p v over the board) and
            # two SwiGLU feed-forward blocks on the mid channels, between the 1x1 convolutions
            mid, ffn = s["mid"], s["ffn"]
            attn = 4 * conv_flops(1, mid, mid) + 2 * 2 * POINTS * POINTS * mid
            total += conv_flops(1, s["trunk"], mid) + conv_flops(1, mid, s["trunk"])
            total += 2 * attn + 2 * 3 * conv_flops(1, mid, ffn)
            continue
        gpool = i % s["gpool_every"] == s["gpool_every"] - 1
        if s["nested"]:
            total += conv_flops(1, s["trunk"], s["mid"]) + conv_flops(1, s["mid"], s["trunk"])
            total += kata_block_flops(s["mid"], s["mid"], s["mid"] - s["gpool"], s["gpool"], gpool)
            total += kata_block_flops(s["mid"], s["mid"], s["mid"], s["gpool"], False)
        else:
            total += kata_block_flops(s["trunk"], s["mid"], s["regular"], s["gpool"], gpool)
    total += conv_flops(1, s["trunk"], s["p1"]) + conv_flops(1, s["trunk"], s["g1"])
    total += conv_flops(1, s["p1"], 2) + conv_flops(1, s["trunk"], s["v1"])
    total += conv_flops(1, s["v1"], 1)
    return total


def build(torch, name, device="cuda", dtype=None):
    """The module for NETS[name] and a function making its inputs for a batch (on device, of
    dtype: half by default)."""
    dtype = dtype or torch.half
    nn = torch.nn
    s = NETS[name]

    def conv(k, c_in, c_out):
        return nn.Conv2d(c_in, c_out, k, padding=k // 2, bias=False)

    if s["kind"] == "lz":
        f = s["filters"]

        class LzBlock(nn.Module):
            def __init__(self):
                super().__init__()
                self.c1, self.b1 = conv(3, f, f), nn.BatchNorm2d(f)
                self.c2, self.b2 = conv(3, f, f), nn.BatchNorm2d(f)

            def forward(self, x):
                y = torch.relu(self.b1(self.c1(x)))
                return torch.relu(x + self.b2(self.c2(y)))

        class Lz(nn.Module):
            def __init__(self):
                super().__init__()
                self.inp, self.inp_bn = conv(3, LZ_PLANES, f), nn.BatchNorm2d(f)
                self.blocks = nn.ModuleList(LzBlock() for _ in range(s["blocks"]))
                self.pc, self.pbn = conv(1, f, 2), nn.BatchNorm2d(2)
                self.pfc = nn.Linear(2 * POINTS, POINTS + 1)
                self.vc, self.vbn = conv(1, f, 1), nn.BatchNorm2d(1)
                self.vfc1, self.vfc2 = nn.Linear(POINTS, 256), nn.Linear(256, 1)

            def forward(self, x):
                x = torch.relu(self.inp_bn(self.inp(x)))
                for b in self.blocks:
                    x = b(x)
                p = self.pfc(torch.relu(self.pbn(self.pc(x))).flatten(1))
                v = torch.relu(self.vbn(self.vc(x))).flatten(1)
                v = torch.tanh(self.vfc2(torch.relu(self.vfc1(v))))
                return p, v

        def inputs(batch):
            x = torch.randn(batch, LZ_PLANES, 19, 19, device=device, dtype=dtype)
            return (x.contiguous(memory_format=torch.channels_last),)

        return Lz(), inputs

    Act = {"mish": nn.Mish, "silu": nn.SiLU}.get(s["act"], nn.ReLU)

    def gpool(x, mask, area):
        # KataGo's global pooling: mean, mean scaled by board width, max (off-board points -1)
        mean = x.sum(dim=(2, 3)) / area
        width = (area.sqrt() - 14.0) / 10.0
        mx = torch.amax(x + (mask - 1.0), dim=(2, 3))
        return torch.cat([mean, mean * width, mx], dim=1)

    def value_pool(x, area):
        mean = x.sum(dim=(2, 3)) / area
        width = (area.sqrt() - 14.0) / 10.0
        return torch.cat([mean, mean * width, mean * (width * width - 0.1)], dim=1)

    class Block(nn.Module):
        """Pre-activation residual block on c channels, optionally with a gpool branch."""

        def __init__(self, c, mid, regular, gpool_c, has_gpool):
            super().__init__()
            inner = regular if has_gpool else mid
            self.has_gpool = has_gpool
            self.bn1, self.act1, self.conv1 = nn.BatchNorm2d(c), Act(), conv(3, c, inner)
            if has_gpool:
                self.gconv, self.gbn = conv(3, c, gpool_c), nn.BatchNorm2d(gpool_c)
                self.gact = Act()
                self.glin = nn.Linear(3 * gpool_c, inner, bias=False)
            self.bn2, self.act2, self.conv2 = nn.BatchNorm2d(inner), Act(), conv(3, inner, c)

        def forward(self, x, mask, area):
            y = self.act1(self.bn1(x)) * mask
            a = self.conv1(y)
            if self.has_gpool:
                g = self.gact(self.gbn(self.gconv(y))) * mask
                a = a + self.glin(gpool(g, mask, area))[:, :, None, None]
            return x + self.conv2(self.act2(self.bn2(a)) * mask)

    class Nested(nn.Module):
        """Nested bottleneck: 1x1 down to mid, the inner blocks, 1x1 back up."""

        def __init__(self, inner):
            super().__init__()
            c, mid = s["trunk"], s["mid"]
            self.bnp, self.actp, self.convp = nn.BatchNorm2d(c), Act(), conv(1, c, mid)
            self.inner = nn.ModuleList(inner)
            self.bnq, self.actq, self.convq = nn.BatchNorm2d(mid), Act(), conv(1, mid, c)

        def forward(self, x, mask, area):
            y = self.convp(self.actp(self.bnp(x)) * mask)
            for b in self.inner:
                y = b(y, mask, area)
            return x + self.convq(self.actq(self.bnq(y)) * mask)

    def tokens(x):
        """(n, c, h, w) channels_last -> (n, h * w, c) without a copy."""
        n, c, h, w = x.shape
        return x.permute(0, 2, 3, 1).reshape(n, h * w, c)

    def untokens(t, like):
        n, c, h, w = like.shape
        return t.reshape(n, h, w, c).permute(0, 3, 1, 2)

    class RMSNorm(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(c))

        def forward(self, t):
            ms = t.float().pow(2).mean(-1, keepdim=True)
            return (t * torch.rsqrt(ms + 1e-6).to(t.dtype)) * self.weight

    class Attention(nn.Module):
        """Pre-norm attention over the board's points, learned rotary encodings per head."""

        def __init__(self, c, heads):
            super().__init__()
            self.heads, self.d = heads, c // heads
            self.norm = RMSNorm(c)
            self.q, self.k = nn.Linear(c, c, bias=False), nn.Linear(c, c, bias=False)
            self.v, self.out = nn.Linear(c, c, bias=False), nn.Linear(c, c, bias=False)
            pairs = self.d // 2
            ys = torch.arange(POINTS) // 19
            xs = torch.arange(POINTS) % 19
            freqs = torch.rand(heads, pairs, 2)
            angle = (xs[None, :, None] * freqs[:, None, :, 0] +
                     ys[None, :, None] * freqs[:, None, :, 1])
            self.register_buffer("cos", torch.cos(angle))   # (heads, points, pairs)
            self.register_buffer("sin", torch.sin(angle))

        def rope(self, t):
            x0, x1 = t[..., 0::2], t[..., 1::2]
            return torch.stack([x0 * self.cos - x1 * self.sin, x0 * self.sin + x1 * self.cos],
                               dim=-1).flatten(-2)

        def forward(self, x, mask, area):
            t = tokens(x)
            n, p, c = t.shape
            u = self.norm(t)
            split = (n, p, self.heads, self.d)
            q = self.rope(self.q(u).view(split).transpose(1, 2))
            k = self.rope(self.k(u).view(split).transpose(1, 2))
            v = self.v(u).view(split).transpose(1, 2)
            o = torch.nn.functional.scaled_dot_product_attention(q, k, v)
            return untokens(t + self.out(o.transpose(1, 2).reshape(n, p, c)), x)

    class FeedForward(nn.Module):
        def __init__(self, c, ffn):
            super().__init__()
            self.norm = RMSNorm(c)
            self.lin1, self.gate = nn.Linear(c, ffn, bias=False), nn.Linear(c, ffn, bias=False)
            self.lin2 = nn.Linear(ffn, c, bias=False)

        def forward(self, x, mask, area):
            t = tokens(x)
            u = self.norm(t)
            h = torch.nn.functional.silu(self.lin1(u)) * self.gate(u)
            return untokens(t + self.lin2(h), x)

    class TipRMS(nn.Module):
        """The RMS-norm trunk tip over the whole board."""

        def __init__(self, c):
            super().__init__()
            self.gamma = nn.Parameter(torch.ones(1, c, 1, 1))
            self.beta = nn.Parameter(torch.zeros(1, c, 1, 1))

        def forward(self, h):
            ms = h.float().pow(2).mean(dim=(1, 2, 3), keepdim=True)
            return h * torch.rsqrt(ms + 1e-6).to(h.dtype) * self.gamma + self.beta

    class Kata(nn.Module):
        def __init__(self):
            super().__init__()
            c = s["trunk"]
            self.init_conv = conv(s["initial_kernel"], KATA_SPATIAL, c)
            self.init_lin = nn.Linear(KATA_GLOBAL, c, bias=False)
            blocks = []
            mid = s["mid"]
            for i in range(s["blocks"]):
                if s.get("heads"):
                    # attention, feed-forward, attention, feed-forward on the mid channels
                    blocks.append(Nested([Attention(mid, s["heads"]), FeedForward(mid, s["ffn"]),
                                          Attention(mid, s["heads"]), FeedForward(mid, s["ffn"])]))
                    continue
                g = i % s["gpool_every"] == s["gpool_every"] - 1
                blocks.append(Nested([Block(mid, mid, mid - s["gpool"], s["gpool"], g),
                                      Block(mid, mid, mid, s["gpool"], False)])
                              if s["nested"] else Block(c, mid, s["regular"], s["gpool"], g))
            self.blocks = nn.ModuleList(blocks)
            self.tip_bn = TipRMS(c) if s.get("heads") else nn.BatchNorm2d(c)
            self.tip_act = Act()
            p1, g1, v1, v2 = s["p1"], s["g1"], s["v1"], s["v2"]
            self.p1, self.g1 = conv(1, c, p1), conv(1, c, g1)
            self.g1bn, self.g1act = nn.BatchNorm2d(g1), Act()
            self.g2p = nn.Linear(3 * g1, p1, bias=False)
            self.p1bn, self.p1act, self.p2 = nn.BatchNorm2d(p1), Act(), conv(1, p1, 2)
            self.pass1, self.pass_act = nn.Linear(3 * g1, p1), Act()
            self.pass2 = nn.Linear(p1, 2, bias=False)
            self.v1, self.v1bn, self.v1act = conv(1, c, v1), nn.BatchNorm2d(v1), Act()
            self.v2, self.v2act = nn.Linear(3 * v1, v2), Act()
            self.v3, self.sv3 = nn.Linear(v2, 3), nn.Linear(v2, 6)
            self.own = conv(1, v1, 1)

        def forward(self, x, glob, mask):
            area = mask.sum(dim=(2, 3))
            h = (self.init_conv(x) + self.init_lin(glob)[:, :, None, None]) * mask
            for b in self.blocks:
                h = b(h, mask, area)
            h = self.tip_act(self.tip_bn(h)) * mask
            g = self.g1act(self.g1bn(self.g1(h))) * mask
            gp = gpool(g, mask, area)
            p = self.p1(h) + self.g2p(gp)[:, :, None, None]
            policy = self.p2(self.p1act(self.p1bn(p)) * mask)
            pass_logits = self.pass2(self.pass_act(self.pass1(gp)))
            v = self.v1act(self.v1bn(self.v1(h))) * mask
            v2 = self.v2act(self.v2(value_pool(v, area)))
            return policy, pass_logits, self.v3(v2), self.sv3(v2), self.own(v)

    def inputs(batch):
        x = torch.randn(batch, KATA_SPATIAL, 19, 19, device=device, dtype=dtype)
        glob = torch.randn(batch, KATA_GLOBAL, device=device, dtype=dtype)
        mask = torch.ones(batch, 1, 19, 19, device=device, dtype=dtype)
        return (x.contiguous(memory_format=torch.channels_last), glob,
                mask.contiguous(memory_format=torch.channels_last))

    return Kata(), inputs


def time_fn(torch, fn, min_seconds, max_iters=2000):
    """Mean seconds of one fn() call: 3 warm-up calls, then CUDA events around enough calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    iters, elapsed = 1, 0.0
    while True:
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        elapsed = start.elapsed_time(end) / 1e3
        if elapsed >= min_seconds or iters >= max_iters:
            return elapsed / iters
        iters = min(max_iters, max(iters * 2, int(iters * min_seconds / max(elapsed, 1e-6)) + 1))


def capture_graph(torch, model, args):
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            model(*args)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        model(*args)
    return graph.replay


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", default="1,16,64,256")
    ap.add_argument("--nets", default="b18c384nbt,b10c384h6nbttf,lz40x256,b6c96,b28c512nbt")
    ap.add_argument("--budget", type=float, default=240.0, help="seconds for the whole run")
    ap.add_argument("--seconds", type=float, default=0.5, help="timed seconds a measurement")
    ap.add_argument("--json", default=None, help="results file, rewritten after each measurement")
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--cpu-check", action="store_true",
                    help="no timing: run every net once on the CPU in fp32 (batch 2) and print "
                         "the output shapes, to check the architectures without a GPU")
    args = ap.parse_args()
    deadline = time.monotonic() + args.budget
    batches = [int(b) for b in args.batch.split(",")]
    nets = args.nets.split(",")

    import torch  # only on the GPU machine
    if args.cpu_check:
        with torch.no_grad():
            for net in nets:
                model, make_inputs = build(torch, net, "cpu", torch.float32)
                outs = model.eval()(*make_inputs(2))
                params = sum(p.numel() for p in model.parameters())
                print(f"{net}: outputs {[tuple(o.shape) for o in outs]}, {params / 1e6:.1f}M "
                      f"parameters, {flops_per_eval(net) / 1e9:.2f} GFLOP/eval, finite "
                      f"{all(bool(torch.isfinite(o).all()) for o in outs)}")
        return 0
    if not torch.cuda.is_available():
        print("torch_baseline: no CUDA device visible to PyTorch", file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = True
    device = torch.cuda.get_device_name(0)
    print(f"PyTorch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {device}")
    print("\n| net | variant | batch | evals/s | ms/batch | GFLOP/eval |")
    print("|---|---|---|---|---|---|")
    sys.stdout.flush()
    results = []

    def record(net, variant, batch, seconds, note=""):
        row = dict(net=net, variant=variant, batch=batch, device=device,
                   evals_per_s=batch / seconds if seconds else None,
                   ms_per_batch=seconds * 1e3 if seconds else None, note=note)
        results.append(row)
        if seconds:
            print(f"| {net} | {variant} | {batch} | {batch / seconds:,.0f} | {seconds * 1e3:.3f} | "
                  f"{flops_per_eval(net) / 1e9:.2f} |")
        else:
            print(f"| {net} | {variant} | {batch} | failed: {note} | | |")
        sys.stdout.flush()
        if args.json:
            with open(args.json, "w") as f:
                json.dump(results, f, indent=1)

    models = {}
    with torch.no_grad():
        for net in nets:
            model, make_inputs = build(torch, net)
            model = model.cuda().half().eval().to(memory_format=torch.channels_last)
            models[net] = (model, make_inputs)
            for batch in batches:
                if time.monotonic() > deadline - 5:
                    print("torch_baseline: budget spent", file=sys.stderr)
                    return 0
                inputs = make_inputs(batch)
                try:
                    t = time_fn(torch, lambda: model(*inputs), args.seconds)
                    record(net, "eager", batch, t)
                    replay = capture_graph(torch, model, inputs)
                    record(net, "eager+graph", batch, time_fn(torch, replay, args.seconds))
                except RuntimeError as e:   # out of memory, capture refused
                    record(net, "eager", batch, None, str(e).split("\n")[0][:80])
                torch.cuda.empty_cache()

        if args.no_compile:
            return 0
        # torch.compile: one compilation per net and batch size (tens of seconds each), so
        # the largest batch first and stop when the next one would not fit in the budget
        slowest = 30.0
        for net in nets:
            model, make_inputs = models[net]
            try:
                compiled = torch.compile(model, mode="reduce-overhead", dynamic=False)
            except Exception as e:   # no triton, unsupported platform
                record(net, "compile", 0, None, f"{type(e).__name__}: {e}"[:80])
                break
            for batch in sorted(batches, reverse=True):
                if time.monotonic() + 1.5 * slowest > deadline:
                    print("torch_baseline: no budget left for torch.compile", file=sys.stderr)
                    return 0
                inputs = make_inputs(batch)
                t0 = time.monotonic()
                try:
                    compiled(*inputs)
                    torch.cuda.synchronize()
                    slowest = max(slowest, time.monotonic() - t0)
                    t = time_fn(torch, lambda: compiled(*inputs), args.seconds)
                    record(net, "compile", batch, t)
                except Exception as e:
                    record(net, "compile", batch, None, f"{type(e).__name__}: {e}"[:80])
                    break
    return 0


if __name__ == "__main__":
    sys.exit(main())
