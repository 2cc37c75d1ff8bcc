"""The Bulk data article's own vocabulary and run helpers: its allocator and layout axes
(which allocations move, the layout columns' order), its peers (roles of
reports/data/containers.csv), the push latency maxima and the layout speed-ups. What every
article's rules share (Run, ratios, slices, signs) is reports/toolkit.py."""
from typing import NamedTuple

import results
from toolkit import by_slice, ratio

PART_OF = "bulk"  # a part of the Bulk data section (sections.registry)

MOVING_ALLOC = "realloc"
STABLE_ALLOCS = ("fixblocks", "geoblocks", "vm")   # never move (test_bulk_alloc: stability)
REALLOC_ALLOCS = ("realloc", "realloc_copy", "constgrow", "constgrow_copy")  # grow by realloc
ALLOC_ORDER = ("static", "realloc", "fixblocks", "geoblocks", "vm", "constgrow")
PLAIN = results.role("baseline")[0]
COLONY = results.role("colony")[0]
HASH_PEERS = results.role("hash_peer")  # id -> item through a hash table
LAYOUT_BASE = "aos"
LAYOUT_ORDER = ("soa", "aosoa8", "aosoa16", "aos_block_soa")  # columns; others after
KERNELS = ("tick", "simulate")
WIDE_KERNELS = {"update": 10, "update8": 10}  # kernels beyond tick/simulate: streams read
TEST_FILE = "tests/test_bulk_alloc.c"


def push_maxima(run, n=None):
    """{(removal, alloc): (container, [max_ns per rep])} of the bulk push_latency cases at
    n (default: the largest n measured), plus that n."""
    push = run.select("push_latency", run.is_bulk)
    if n is None:
        n = max((k.n for k in push), default=None)
    out = {}
    for k in push:
        if k.n == n and run.column(k, "max_ns"):
            m = run.axes(k.container)
            out[(m.removal, m.alloc)] = (k.container, run.column(k, "max_ns"))
    return out, n


def layout_order(layout):
    """Sort key of a layout name: LAYOUT_ORDER first, the others by name."""
    return (LAYOUT_ORDER.index(layout) if layout in LAYOUT_ORDER else len(LAYOUT_ORDER), layout)


class LayoutCase(NamedTuple):
    """A kernel's case of layout_speedups, its layouts aside (LayoutPoint.case)."""
    kernel: str
    n: int
    elem_bytes: int
    hole_ratio: float
    hole_pattern: str
    axes: tuple = ()

    def case_key(self, container):
        """The results.CaseKey of the kernel's case for `container` (order seq)."""
        return results.CaseKey((self.kernel, container, self.n, self.elem_bytes, "seq",
                                self.hole_ratio, self.hole_pattern) + self.axes)

    def kernel_order(self):
        """Sort key: KERNELS' order first, then n, elem_bytes, holes."""
        return (KERNELS.index(self.kernel) if self.kernel in KERNELS else len(KERNELS),) + self[1:]


class LayoutPoint(NamedTuple):
    """A key of layout_speedups: the kernel's case (without its order, always seq) and the
    layout measured against the AoS one."""
    kernel: str
    n: int
    elem_bytes: int
    hole_ratio: float
    hole_pattern: str
    layout: str
    axes: tuple = ()  # the case's appended axes (results.CaseKey.axes)

    def case(self):
        """The LayoutCase of the point (the point without its layout)."""
        return LayoutCase(self.kernel, self.n, self.elem_bytes, self.hole_ratio,
                          self.hole_pattern, self.axes)


def layout_speedups(run, kernels=KERNELS):
    """{LayoutPoint: (container, RatioCI)}: the speed-up of each particle layout over the AoS
    one (AoS time / layout time) in the same case, for `kernels`."""
    out = {}
    for kernel in kernels:
        for sl, group in by_slice(run.select(kernel, run.is_particles)).items():
            base = [c for c in group if run.axes(c).layout == LAYOUT_BASE]
            if not base:
                continue
            for c, st in group.items():
                layout = run.axes(c).layout
                if layout != LAYOUT_BASE:
                    point = LayoutPoint(kernel, sl.n, sl.elem_bytes, sl.hole_ratio,
                                        sl.hole_pattern, layout, sl.axes)
                    out[point] = (c, ratio(st, group[base[0]]))
    return out
