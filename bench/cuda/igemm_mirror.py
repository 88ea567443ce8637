"""bench/cuda/igemm_mirror.py -- a pure-Python mirror of the index math of
nn/cuda/kernels/conv_igemm.cu: the weight layout of prepare_f16, the A (vector and scalar gather)
and B tile loaders, the pipeline stages, the WMMA fragment offsets, the C tile and the epilogue's
output indexing, line for line. It runs each tile configuration on small shapes, square and
rectangular (height x width, as the kernel takes them), with integer data (exact in floats)
against a direct convolution; every shared-memory slot starts as NaN, so
reading a slot no loader wrote shows up as a mismatch, and every output is checked to be written
exactly once. For checking changes to the kernel's indexing on a machine without a GPU
(python3 bench/cuda/igemm_mirror.py, ~10 s); the device test is tests/cuda/test_conv_igemm.c.
Keep it in step with the kernel (tile configurations in CFGS).
"""
import random
import sys

BK=32; STAGES=4
def pad_in(c): return (c+BK-1)//BK*BK
def pad_out(c): return (c+7)//8*8
def prepare(w,k,c_in,c_out):
    cip,cop=pad_in(c_in),pad_out(c_out)
    h=[0.0]*(k*k*cip*cop)
    for co in range(c_out):
        for ci in range(c_in):
            for tap in range(k*k):
                h[(tap*cip+ci)*cop+co]=w[(co*c_in+ci)*k*k+tap]
    return h
def sim(cfg,VEC_A,inp,wd,n,height,width,c_in,c_out,k):
    BM,BN,WMs,WNs=cfg; TH=32*WMs*WNs; WTM=BM//WMs; WTN=BN//WNs; FM=WTM//16; FN=WTN//16
    LDA=BK+8; LDB=BN+8; LDC=BN+4; A_ST=BM*LDA; B_ST=BK*LDB
    A_CH=BM*BK//8; B_CH=BK*BN//8
    points=height*width; M=n*points; ci_tiles=pad_in(c_in)//BK; k_tiles=k*k*ci_tiles; co_pad=pad_out(c_out)
    out=[None]*(M*c_out)
    for by in range((M+BM-1)//BM):
      for bx in range((c_out+BN-1)//BN):
        n0=bx*BN; m0=by*BM
        sm=[float('nan')]*(STAGES*(A_ST+B_ST)); Bs=STAGES*A_ST
        pre={}
        if VEC_A:
          for tid in range(TH):
            for it in range(A_CH//TH):
              row=(tid+it*TH)//(BK//8); m=m0+row; p=m%points; inside=m<M
              pre[tid,it]=(p//width if inside else -64, p%width if inside else -64, (m if inside else 0)*c_in)
        def load(stage,kt):
          tap=kt//ci_tiles; ci0=(kt-tap*ci_tiles)*BK; pad=k//2; dy=tap//k-pad; dx=tap%k-pad
          a=stage*A_ST; b=Bs+stage*B_ST
          if VEC_A:
            for tid in range(TH):
              for it in range(A_CH//TH):
                q=tid+it*TH; row=q//(BK//8); c8=(q%(BK//8))*8
                ay,ax,src=pre[tid,it]; y=ay+dy; x=ax+dx
                valid= 0<=y<height and 0<=x<width and ci0+c8<c_in
                for e in range(8):
                  sm[a+row*LDA+c8+e]= inp[src+(dy*width+dx)*c_in+ci0+c8+e] if valid else 0.0
          else:
            for tid in range(TH):
              for q in range(tid,BM*BK,TH):
                row=q//BK; col=q%BK; m=m0+row; ci=ci0+col; v=0.0
                if m<M and ci<c_in:
                  p=m%points; y=p//width+dy; x=p%width+dx
                  if 0<=y<height and 0<=x<width: v=inp[(m+dy*width+dx)*c_in+ci]
                sm[a+row*LDA+col]=v
          for tid in range(TH):
            for it in range(B_CH//TH):
              q=tid+it*TH; r=q//(BN//8); c8=(q%(BN//8))*8; col=n0+c8; valid=col<co_pad
              for e in range(8):
                sm[b+r*LDB+c8+e]= wd[(kt*BK+r)*co_pad+col+e] if valid else 0.0
        acc={}
        for s in range(STAGES-1):
          if s<k_tiles: load(s,s)
        for kt in range(k_tiles):
          nx=kt+STAGES-1
          if nx<k_tiles: load(nx%STAGES,nx)
          for warp in range(TH//32):
            wm=warp//WNs; wn=warp%WNs
            aso=(kt%STAGES)*A_ST+wm*WTM*LDA; bso=Bs+(kt%STAGES)*B_ST+wn*WTN
            for kk in (0,16):
              for i in range(FM):
                for j in range(FN):
                  pa=aso+i*16*LDA+kk; pb=bso+kk*LDB+j*16
                  for r in range(16):
                    for c in range(16):
                      s=sum(sm[pa+r*LDA+t]*sm[pb+t*LDB+c] for t in range(16))
                      acc[warp,i,j,r,c]=acc.get((warp,i,j,r,c),0.0)+s
        Cs={}
        for warp in range(TH//32):
          wm=warp//WNs; wn=warp%WNs
          for i in range(FM):
            for j in range(FN):
              base=(wm*WTM+i*16)*LDC+wn*WTN+j*16
              for r in range(16):
                for c in range(16): Cs[base+r*LDC+c]=acc[warp,i,j,r,c]
        vec = c_out%8==0
        if vec:
          for g in range(BM*BN//8):
            row=g//(BN//8); col=(g%(BN//8))*8; m=m0+row; c=n0+col
            if m>=M or c>=c_out: continue
            for e in range(8):
              assert out[m*c_out+c+e] is None; out[m*c_out+c+e]=Cs[row*LDC+col+e]
        else:
          for g in range(BM*BN):
            row=g//BN; col=g%BN; m=m0+row; c=n0+col
            if m>=M or c>=c_out: continue
            assert out[m*c_out+c] is None; out[m*c_out+c]=Cs[row*LDC+col]
    return out
def ref(inp,w,n,height,width,c_in,c_out,k):
    pad=k//2; out=[0.0]*(n*height*width*c_out)
    for i in range(n):
      for y in range(height):
        for x in range(width):
          for co in range(c_out):
            s=0.0
            for dy in range(k):
              for dx in range(k):
                yy=y+dy-pad; xx=x+dx-pad
                if 0<=yy<height and 0<=xx<width:
                  for ci in range(c_in):
                    s+=inp[((i*height+yy)*width+xx)*c_in+ci]*w[((co*c_in+ci)*k+dy)*k+dx]
            out[((i*height+y)*width+x)*c_out+co]=s
    return out
CFGS=[(128,128,2,4),(128,64,4,2),(64,64,2,2),(64,32,4,1)]  # BM, BN, warps M, warps N
random.seed(1)
failed=False
# (config, vector gather, batch, height, width, c_in, c_out, k): squares, then rectangles both
# ways (KataGo's rectangular boards: a W x H board is H rows of W points)
CASES=[(2,True,3,5,5,40,24,3),(1,False,2,9,9,7,70,1),(0,True,2,9,9,16,20,3),(3,False,2,4,4,7,7,3),
       (0,True,1,5,5,8,136,1),(1,True,2,6,6,16,72,3),(3,True,1,3,3,8,40,3),
       (2,True,2,3,7,40,24,3),(0,True,2,7,3,16,20,3),(3,False,2,5,2,7,7,3),(1,True,1,2,9,16,72,3),
       (3,True,3,4,1,8,40,3),(1,False,2,1,6,7,70,1)]
for (cfgi,VEC,n,height,width,c_in,c_out,k) in CASES:
    inp=[random.randint(-4,4) for _ in range(n*height*width*c_in)]
    w=[random.randint(-4,4) for _ in range(c_out*c_in*k*k)]
    got=sim(CFGS[cfgi],VEC,inp,prepare(w,k,c_in,c_out),n,height,width,c_in,c_out,k)
    r=ref(inp,w,n,height,width,c_in,c_out,k)
    bad=sum(1 for a,b in zip(got,r) if a!=b)
    print(f"config {cfgi}, vector gather {VEC}, batch {n}, {height} rows x {width}, "
          f"{c_in} -> {c_out}, k {k}: {bad} mismatches")
    failed = failed or bad > 0
sys.exit(1 if failed else 0)
