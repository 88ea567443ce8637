#!/usr/bin/python3
"""The PyTorch peer of `shido bench train`: the same tsumego discriminator (seed 002: conv 3x3
128/96/64 with ReLU, conv 1x1 to 1 plane, dense 64 with ReLU, dense 1; 9x9 windows of 25 planes),
the same loss (binary cross-entropy on the logit), Adam (lr 1e-3), random binary planes, the same
batch sizes and thread count, timed the same way (two warm-up steps, then steps for S seconds).

Run with Debian's python3-torch (/usr/bin/python3): a benchmark, never part of the product.
    bench/train/torch_disc.py [--batch 8,32,128] [--threads 2] [--seconds 5] [--device cpu|cuda]
"""
import argparse
import sys
import time

try:
    import torch
    from torch import nn
except ImportError:
    sys.exit("torch_disc.py: no PyTorch here; install Debian's: apt-get install -y python3-torch")


def net():
    return nn.Sequential(
        nn.Conv2d(25, 128, 3, padding=1), nn.ReLU(),
        nn.Conv2d(128, 96, 3, padding=1), nn.ReLU(),
        nn.Conv2d(96, 64, 3, padding=1), nn.ReLU(),
        nn.Conv2d(64, 1, 1), nn.Flatten(),
        nn.Linear(81, 64), nn.ReLU(),
        nn.Linear(64, 1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--batch", default="8,32,128")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--device", default="cpu")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.backends.cudnn.benchmark = True
    if a.device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if a.device == "cuda" else (lambda: None)
    print(f"torch {torch.__version__}, device {a.device}, threads {a.threads}")
    print("| batch | threads | train samples/s | ms per step | forward samples/s |")
    print("|---|---|---|---|---|")
    for b in [int(v) for v in a.batch.split(",")]:
        torch.manual_seed(1)
        m = net().to(dev)
        opt = torch.optim.Adam(m.parameters(), lr=1e-3)
        loss_fn = nn.BCEWithLogitsLoss()
        x = (torch.rand(b, 25, 9, 9) < 0.5).float().to(dev)
        y = (torch.arange(b) % 2).float().unsqueeze(1).to(dev)

        def step():
            opt.zero_grad(set_to_none=True)
            loss = loss_fn(m(x), y)
            loss.backward()
            opt.step()

        for _ in range(2):
            step()
        sync()
        steps, t0 = 0, time.perf_counter()
        while True:
            step()
            steps += 1
            sync()
            t1 = time.perf_counter()
            if t1 - t0 >= a.seconds:
                break
        fwd, f0 = 0, time.perf_counter()
        with torch.no_grad():
            while True:
                m(x)
                fwd += 1
                sync()
                f1 = time.perf_counter()
                if f1 - f0 >= a.seconds / 2:
                    break
        print(f"| {b} | {a.threads} | {steps * b / (t1 - t0):.0f} | "
              f"{1e3 * (t1 - t0) / steps:.2f} | {fwd * b / (f1 - f0):.0f} |", flush=True)


if __name__ == "__main__":
    main()
