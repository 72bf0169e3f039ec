"""The arithmetic of the runtime's convolution: plain NumPy arrays in and out, no MXNet semantics.

``ops/`` holds the operators (attributes, shape rules, MXNet's checks) and calls :func:`convolution`,
which picks the cheapest NumPy formulation for the geometry. Every one is a BLAS matmul or whole-tensor
ufuncs: no Python loop over pixels, channels or groups.

* pointwise (1x1 kernel, no padding): the input itself (a strided view for stride > 1) is the GEMM
  operand, no im2col copy;
* depthwise (one input and one output channel per group), stride 1: im2col on the flattened zero-padded
  maps, where every tap's values are one contiguous slice (one strided view, copied along whole maps), in
  blocks of channels small enough to stay in the cache for their batched matmul; the same products and
  sums as the batched matmul below (equal bit for bit where tested), 2.2x to 2.5x faster on MobileNet's maps from 112x112 to 7x7
  (measured, CPU time, one thread, OpenBLAS 0.3.20 SkylakeX: 32 channels 112x112 1.8 ms against 4.4,
  512 channels 14x14 0.46 against 1.07) and faster than the channels-last tap sum on 7x7 and 8x8 maps;
* depthwise with a stride on maps of at most 8x8 outputs: a sum over the kernel taps of shifted views,
  channels-last, so that each multiply-add runs along contiguous channels instead of the short rows of a
  7x7 map (measured, CPU time: 0.25 ms against 0.38 ms for 512 channels 14x14 stride 2);
* no groups, stride 1, at most a quarter as many filters as input channels, maps of at least 20x20
  outputs: one GEMM of all taps' weights with the flattened padded input, then the partial products
  summed at their taps' offsets (no im2col copy; measured, CPU time, 128 channels to 32 with 3x3: 4.1 ms
  against 6.0 ms on 56x56, 1.2 ms against 1.5 ms on 28x28; slower when filters outnumber a quarter of
  the channels, since the partial products then outweigh the im2col copy);
* 2-D without groups on maps of at least 10,000 outputs: im2col and one GEMM per band of output rows, each
  band's operand small enough to stay in the cache;
* everything else: im2col as a read-only strided view of the zero-padded input, copied once by the
  ``reshape`` into the GEMM operand, and one ``np.matmul`` batched over (batch, group): a single GEMM for
  an ungrouped convolution of one sample; with few filters over many input values, on maps of at most 64x64
  outputs, that GEMM runs transposed (``(O, C*K) @ (C*K, F)``, faster in OpenBLAS for that shape) and the
  output is copied back to (F, O).
"""
import math

import numpy as np

__all__ = ["convolution", "transposed_convolution", "zero_padded", "sliding_windows", "output_sizes"]

#: the largest float64 array one step of :func:`onednn_transposed_convolution` sweeps (within a core's L2)
REPLAY_STEP_BYTES = 1 << 20

#: depthwise convolutions with at most this many output positions per channel go channels-last
CHANNELS_LAST_MAX_POSITIONS = 64
#: ungrouped stride-1 convolutions with at least this many input channels per filter and output positions
#: per map take the shifted GEMM (a DenseNet's 3x3 convolutions: 128 channels in, 32 out)
SHIFTED_GEMM_MIN_CHANNELS_PER_FILTER = 4
SHIFTED_GEMM_MIN_POSITIONS = 400
#: ungrouped convolutions with at most this many filters, at least 4 input values (channels x taps) per filter
#: and at most this many output positions run their GEMM transposed, ``(O, C*K) @ (C*K, F)``, then copy the
#: output back to (F, O) (measured, CPU time, one thread, OpenBLAS 0.3.20 SkylakeX: 64 channels 3x3 on 56x56
#: 3.6 ms against 5.3 ms, 128 on 28x28 2.6 against 3.5, 128 to 32 on 28x28 0.8 against 1.8, 1x1 256 to 64 on
#: 56x56 1.4 against 1.7; slower with more filters or positions: 64 channels on 224x224 80 against 64 ms)
#: 2-D ungrouped convolutions with at least this many output positions per map run in bands of output rows,
#: each band's im2col operand at most ROW_BAND_VALUES values (measured, CPU time, one thread, OpenBLAS 0.3.20
#: SkylakeX, a loaded machine: 64 channels 3x3 on 224x224 83 ms against 140, 128 on 112x112 60 against 67;
#: on 56x56 and smaller maps the bands lose, most with many channels: 512 on 28x28 76 against 35)
ROW_BANDS_MIN_POSITIONS = 10000
ROW_BAND_VALUES = 1 << 17
TRANSPOSED_GEMM_MAX_FILTERS = 128
TRANSPOSED_GEMM_MAX_POSITIONS = 4096
#: stride-1 depthwise convolutions on larger maps take their im2col on flat maps in blocks of channels of about
#: this many values (:func:`_depthwise_flat`)
DEPTHWISE_BLOCK_VALUES = 1 << 17


def zero_padded(x, pad):
    """``x`` (N, C, *S) with ``pad[i]`` zeros on both sides of spatial axis ``2 + i``.

    One allocation and one copy (``np.pad`` costs about 0.1 ms of Python per call)."""
    if not any(pad):
        return x
    out = np.zeros(x.shape[:2] + tuple(d + 2 * p for d, p in zip(x.shape[2:], pad)), dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(p, p + d) for p, d in zip(pad, x.shape[2:]))] = x
    return out


def sliding_windows(x, kernel, stride, dilate, out_sizes, lead=2):
    """A read-only strided view ``(*lead dims, *kernel, *out_sizes)`` of ``x``'s sliding windows: no copy."""
    spatial = x.strides[lead:]
    return np.lib.stride_tricks.as_strided(
        x, x.shape[:lead] + tuple(kernel) + tuple(out_sizes),
        x.strides[:lead] + tuple(s * d for s, d in zip(spatial, dilate))
        + tuple(s * st for s, st in zip(spatial, stride)), writeable=False)


def output_sizes(spatial, kernel, stride, dilate, pad):
    """The output sizes of a convolution's spatial axes."""
    return tuple((d + 2 * p - (dl * (k - 1) + 1)) // s + 1
                 for d, k, s, dl, p in zip(spatial, kernel, stride, dilate, pad))


def _tap(x, offset, stride, dilate, out_sizes, first_axis):
    """The view of ``x`` that kernel tap ``offset`` reads, spatial axes starting at ``first_axis``."""
    return x[(slice(None),) * first_axis + tuple(
        slice(o * dl, o * dl + s * (n - 1) + 1, s) for o, dl, s, n in zip(offset, dilate, stride, out_sizes))]


def _depthwise_channels_last(x, w, kernel, stride, dilate, pad, out_sizes):
    """One input and one output channel per group: ``sum over taps of shifted view * per-channel weight``."""
    n, c = x.shape[:2]
    # one copy: into a zero-padded channels-last buffer (N, *S, C)
    padded = np.zeros((n,) + tuple(d + 2 * p for d, p in zip(x.shape[2:], pad)) + (c,), dtype=x.dtype)
    padded[(slice(None),) + tuple(slice(p, p + d) for p, d in zip(pad, x.shape[2:]))] = \
        np.moveaxis(x, 1, -1)
    taps = np.ascontiguousarray(w.reshape(c, -1).T)  # (K, C): tap t's weights, contiguous over the channels
    out = np.empty((n,) + tuple(out_sizes) + (c,), dtype=x.dtype)
    scratch = np.empty_like(out)
    for t, offset in enumerate(np.ndindex(*kernel)):
        view = _tap(padded, offset, stride, dilate, out_sizes, 1)
        if t == 0:
            np.multiply(view, taps[t], out=out)
        else:
            np.multiply(view, taps[t], out=scratch)
            out += scratch
    return np.ascontiguousarray(np.moveaxis(out, -1, 1))


def _depthwise_flat(x, w, kernel, dilate, pad, out_sizes):
    """Stride 1, one input and one output channel per group: im2col of each flattened zero-padded map (tap
    ``o``'s values are one contiguous slice of the flat map, so one strided view holds every tap and its copy
    runs along whole maps, not rows as short as the map is wide), a block of channels at a time so that each
    block's operand (about :data:`DEPTHWISE_BLOCK_VALUES` values) is still in the cache when its matmul,
    ``(C, 1, K) @ (N, C, K, span)``, reads it. An output whose window runs past the end of its row lands in a
    padding column, cut away at the end."""
    n, c = x.shape[:2]
    padded = zero_padded(x, pad)
    spatial = padded.shape[2:]
    flat = padded.reshape(n, c, -1)
    steps = [math.prod(spatial[i + 1:]) for i in range(len(spatial))]
    span = sum((o - 1) * st for o, st in zip(out_sizes, steps)) + 1  # the flat extent of the wanted outputs
    item = flat.itemsize
    taps = np.lib.stride_tricks.as_strided(
        flat, (n, c) + tuple(kernel) + (span,),
        flat.strides[:2] + tuple(dl * st * item for dl, st in zip(dilate, steps)) + (item,), writeable=False)
    weights = w.reshape(c, 1, -1)
    n_taps = weights.shape[2]
    out = np.empty((n, c, 1, span), dtype=x.dtype)
    block = max(1, DEPTHWISE_BLOCK_VALUES // (n * n_taps * span))
    for first in range(0, c, block):
        last = min(c, first + block)
        np.matmul(weights[first:last], taps[:, first:last].reshape(n, last - first, n_taps, span),
                  out=out[:, first:last])
    return np.ascontiguousarray(np.lib.stride_tricks.as_strided(
        out, (n, c) + tuple(out_sizes), out.strides[:2] + tuple(st * item for st in steps), writeable=False))

def _shifted_gemm(x, w, dilate, pad, out_sizes):
    """Stride 1 without groups: ONE GEMM of every tap's weights with the flattened zero-padded input,
    ``(K*F, C) @ (C, N*P)``, then the K partial products summed, each shifted by its tap's offset in the
    flat map. No im2col copy; an output whose window would run past the end of a row lands in a padding
    column and is cut away (a window never reaches into the next sample's map)."""
    n, c = x.shape[:2]
    nf, kernel = w.shape[0], w.shape[2:]
    padded = zero_padded(x, pad)
    spatial = padded.shape[2:]
    flat = padded.reshape(n, c, -1)
    flat = flat[0] if n == 1 else np.ascontiguousarray(flat.swapaxes(0, 1)).reshape(c, -1)
    steps = [math.prod(spatial[i + 1:]) for i in range(len(spatial))]
    offsets = [sum(o * d * s for o, d, s in zip(tap, dilate, steps)) for tap in np.ndindex(*kernel)]
    taps = np.ascontiguousarray(np.moveaxis(w.reshape(nf, c, -1), 2, 0)).reshape(-1, c)  # (K*F, C)
    partial = np.matmul(taps, flat).reshape(len(offsets), nf, -1)
    total = np.zeros((nf, flat.shape[1]), dtype=x.dtype)
    length = flat.shape[1] - offsets[-1]  # the offsets grow: the last tap reaches farthest
    summed = total[:, :length]
    for tap, offset in enumerate(offsets):
        summed += partial[tap, :, offset:offset + length]
    y = total.reshape((nf, n) + spatial)[(slice(None), slice(None)) + tuple(slice(0, o) for o in out_sizes)]
    return np.ascontiguousarray(y.swapaxes(0, 1))


def _row_bands(x, w, stride, dilate, pad, out_sizes):
    """A 2-D ungrouped convolution on a large map, im2col and GEMM one band of output rows at a time: each
    band's im2col operand (at most :data:`ROW_BAND_VALUES` values, at least one row) stays in the cache for its
    GEMM instead of streaming the whole map's operand through memory twice."""
    n, c = x.shape[:2]
    nf, kernel = w.shape[0], w.shape[2:]
    padded = zero_padded(x, pad)
    weights = w.reshape(nf, -1)
    out = np.empty((n, nf) + tuple(out_sizes), dtype=x.dtype)
    rows = max(1, ROW_BAND_VALUES // (c * math.prod(kernel) * out_sizes[1]))
    reach = dilate[0] * (kernel[0] - 1) + 1  # the input rows one output row reads
    for first in range(0, out_sizes[0], rows):
        last = min(out_sizes[0], first + rows)
        band = padded[:, :, first * stride[0]:(last - 1) * stride[0] + reach]
        cols = sliding_windows(band, kernel, stride, dilate, (last - first, out_sizes[1]))
        out[:, :, first:last] = np.matmul(weights, cols.reshape(n, -1, (last - first) * out_sizes[1])).reshape(
            n, nf, last - first, out_sizes[1])
    return out


def convolution(x, w, stride, dilate, pad, groups):
    """``(N, C, *S) * (F, C / groups, *K) -> (N, F, *O)`` (cross-correlation, zero padding), in ``x``'s dtype.

    ``x`` and ``w`` share a floating dtype; the caller adds the bias."""
    kernel = tuple(w.shape[2:])
    n, c = x.shape[:2]
    nf = w.shape[0]
    out_sizes = output_sizes(x.shape[2:], kernel, stride, dilate, pad)
    positions = math.prod(out_sizes)
    cg, fg = c // groups, nf // groups
    n_taps = math.prod(kernel)
    if groups == c and fg == 1 and n_taps > 1 and all(s == 1 for s in stride) and DEPTHWISE_BLOCK_VALUES:
        y = _depthwise_flat(x, w, kernel, dilate, pad, out_sizes)
    elif groups == c and fg == 1 and positions <= CHANNELS_LAST_MAX_POSITIONS and n_taps > 1:
        y = _depthwise_channels_last(x, w, kernel, stride, dilate, pad, out_sizes)
    elif (groups == 1 and n_taps > 1 and all(s == 1 for s in stride) and nf * SHIFTED_GEMM_MIN_CHANNELS_PER_FILTER <= c
          and positions >= SHIFTED_GEMM_MIN_POSITIONS):
        y = _shifted_gemm(x, w, dilate, pad, out_sizes)
    elif groups == 1 and len(kernel) == 2 and n_taps > 1 and positions >= ROW_BANDS_MIN_POSITIONS:
        y = _row_bands(x, w, stride, dilate, pad, out_sizes)
    else:
        if all(k == 1 for k in kernel) and not any(pad):
            # pointwise: the (strided) input is the GEMM operand; the reshape copies only when strided
            cols = x[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]
        else:
            cols = sliding_windows(zero_padded(x, pad), kernel, stride, dilate, out_sizes)
        operand = cols.reshape(n, groups, cg * math.prod(kernel), positions)
        weights = w.reshape(groups, fg, -1)
        if groups == 1 and nf <= TRANSPOSED_GEMM_MAX_FILTERS and cg * n_taps >= 4 * nf \
                and positions <= TRANSPOSED_GEMM_MAX_POSITIONS:
            # few filters over many input values: OpenBLAS runs (O, C*K) @ (C*K, F) faster than its transpose
            y = np.matmul(operand.swapaxes(2, 3), weights.swapaxes(1, 2)).swapaxes(2, 3)
        else:
            # (groups, F/g, C/g*K) @ (N, groups, C/g*K, O): one GEMM per (sample, group), all in C
            y = np.matmul(weights, operand)
    return y.reshape((n, nf) + out_sizes)


def onednn_transposed_convolution(x, w, stride, dilate, pad, adj, block, chunk=16):
    """``transposed_convolution`` of float32 (one group) summed as oneDNN's direct AVX-512 deconvolution sums
    (``jit:avx512_common``, measured bit for bit against MXNet 1.9.1): the input channels in blocks of
    ``block``; each block's sum starts from zero and takes its terms kernel row by kernel row, column by
    column, channel by channel, one fused multiply-add each; the blocks' sums are then added in order, in
    float32. The products of two float32 values are exact in float64, so each fused step is a float64 add
    rounded once to float32 (a double rounding only where a float64 sum lands on a float32 midpoint).

    All blocks run at once, ``chunk`` output channels at a time; the output grid is held as its ``stride``
    phases (rows ``i * stride + r``), so that each tap adds into a contiguous window of one phase. The
    samples go in groups whose per-step arrays stay within :data:`REPLAY_STEP_BYTES`: a step is a few
    whole-array ufuncs, bound by memory once its arrays leave the cache (100 regions of 256 channels
    14x14 to 28x28, one thread: 17.7 s of CPU before, 9.2 s in groups of two samples with the add and its
    rounding in one ufunc, bit for bit the same; the plain GEMM takes 0.56 s)."""
    n, c = x.shape[:2]
    step_bytes = 8 * -(-c // block) * min(chunk, w.shape[1]) * math.prod(x.shape[2:])
    group = max(1, REPLAY_STEP_BYTES // step_bytes)
    if n > group:
        return np.concatenate([onednn_transposed_convolution(x[i:i + group], w, stride, dilate, pad, adj, block,
                                                             chunk) for i in range(0, n, group)])
    kernel, spatial = tuple(w.shape[2:]), tuple(x.shape[2:])
    nf = w.shape[1]
    nb = -(-c // block)
    if nb * block != c:  # oneDNN pads the last block with zero channels: fma(0, w, s) == s
        x = np.concatenate([x, np.zeros((n, nb * block - c) + spatial, x.dtype)], axis=1)
        w = np.concatenate([w, np.zeros((nb * block - c,) + w.shape[1:], w.dtype)], axis=0)
    xb = x.astype(np.float64).reshape((n, nb, block, 1) + spatial)
    wb = w.astype(np.float64).reshape((nb, block, nf) + kernel)
    # a tap at (kernel) offset o * dl lands in phase (o * dl) % s, shifted by (o * dl) // s rows
    taps = [(tap, tuple((o * dl) % s for o, dl, s in zip(tap, dilate, stride)),
             tuple((o * dl) // s for o, dl, s in zip(tap, dilate, stride))) for tap in np.ndindex(*kernel)]
    full = tuple((d - 1) * s + dl * (k - 1) + 1 + a for d, k, s, dl, a in zip(spatial, kernel, stride, dilate, adj))
    sizes = tuple(-(-f // s) for f, s in zip(full, stride))  # the rows of phase 0, the longest
    out = np.zeros((n, nf) + full, np.float32)
    expand = (None,) * len(spatial)
    for f0 in range(0, nf, chunk):
        fc = min(chunk, nf - f0)
        phases = np.zeros(stride + (n, nb, fc) + sizes, np.float32)
        work = np.empty((n, nb, fc) + spatial)
        for tap, phase, shift in taps:
            window = phases[phase + (slice(None),) * 3 + tuple(slice(h, h + d) for h, d in zip(shift, spatial))]
            for ch in range(block):
                np.multiply(xb[:, :, ch], wb[(slice(None), ch, slice(f0, f0 + fc)) + tap + expand], out=work)
                np.add(window, work, out=window, casting="same_kind")  # in float64, rounded once on the way out
        for phase in np.ndindex(*stride):
            total = phases[phase][:, 0]
            for b in range(1, nb):
                total = total + phases[phase][:, b]
            target = out[(slice(None), slice(f0, f0 + fc)) + tuple(slice(r, None, s) for r, s in zip(phase, stride))]
            target[...] = total[(slice(None), slice(None)) + tuple(slice(0, t) for t in target.shape[2:])]
    return np.ascontiguousarray(out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))])


def transposed_convolution(x, w, stride, dilate, pad, adj, groups):
    """``(N, C, *I) * (C, F / groups, *K) -> (N, F, *O)`` (MXNet's Deconvolution, no bias), in ``x``'s dtype.

    Every input value scatters a weighted copy of the kernel: one matmul batched over (batch, group) gives
    each input position's contribution to every tap, ``(groups, F/g*K, C/g) @ (N, groups, C/g, I)``, and one
    strided add per kernel tap places the contributions (col2im); the padding is cropped at the end."""
    n, c = x.shape[:2]
    kernel, spatial = tuple(w.shape[2:]), tuple(x.shape[2:])
    cg, fg = c // groups, w.shape[1]
    nf = fg * groups
    weights = w.reshape(groups, cg, fg * math.prod(kernel)).swapaxes(1, 2)
    contributions = np.matmul(weights, x.reshape(n, groups, cg, math.prod(spatial))).reshape(
        (n, nf) + kernel + spatial)
    full = tuple((d - 1) * s + dl * (k - 1) + 1 + a for d, k, s, dl, a in zip(spatial, kernel, stride, dilate, adj))
    out = np.zeros((n, nf) + full, dtype=x.dtype)
    for tap in np.ndindex(*kernel):
        out[(slice(None), slice(None)) + tuple(slice(o * dl, o * dl + (d - 1) * s + 1, s) for o, dl, d, s in
                                               zip(tap, dilate, spatial, stride))] += \
            contributions[(slice(None), slice(None)) + tap]
    return np.ascontiguousarray(out[(slice(None), slice(None)) + tuple(slice(p, f - p) for p, f in zip(pad, full))])
