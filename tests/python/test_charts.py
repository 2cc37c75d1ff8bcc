"""Tests of what every claim's chart draws (reports/charts.py and the chart functions of
reports/sections/: bulk_charts, cases, aoa_claims.chart_walk, handle_map.render_chart,
handle_map_claims.chart_defrag_steps, lists_claims.chart_sorted_insert), on crafted rows:
the series each must draw (the designs its claims name, the article's design first), a
95% CI on every median, at most charts.MAX_SERIES series in a panel, no empty panel, no
line through a single x value, one unit per quantity (charts.op_unit).

The figures are inspected as charts.save receives them (the `drawn` fixture records
what each figure holds, then writes the PNG as usual).

Run from the repository root with Debian's interpreter:
    /usr/bin/python3 -m pytest -q tests/python/test_charts.py
Every output goes to pytest's tmp_path.
"""
import re
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.dont_write_bytecode = True
sys.path.insert(0, str(REPO / "reports"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import charts  # noqa: E402
import claims as claims_data  # noqa: E402
import results as res  # noqa: E402
from matplotlib.container import BarContainer, ErrorbarContainer  # noqa: E402
from sections import aoa_claims as ac  # noqa: E402
from sections import bulk_charts as bc  # noqa: E402
from sections import cases as cs  # noqa: E402
from sections import handle_map, handle_map_claims as hmc, lists_claims as lc  # noqa: E402
from toolkit import Run  # noqa: E402
from test_bulk import rows_of, synthetic_rows, write_csv  # noqa: E402
from test_verdicts_aoa import HEADER as AOA_HEADER, tags  # noqa: E402
from test_verdicts_handle_map import HEADER as HM_HEADER, lap_noise, steps, table  # noqa: E402
from test_verdicts_lists import sorted_insert, write  # noqa: E402

BULK_CLAIMS = [c for c in claims_data.load_claims() if c.article == "Bulk data"]


# --- what a figure holds --------------------------------------------------------------------

def _spread(container):
    """True when an ErrorbarContainer draws an error bar of non-zero length."""
    return any(np.abs(np.diff(np.asarray(seg), axis=0)).sum() > 0
               for col in container.lines[2] for seg in col.get_segments())


def facts(fig):
    """{"legend": labels of the figure's legend, else of the panels' legends, in order;
    "panels": per visible panel {"title", "labels" (its legend entries), "series": [{label,
    n_x (distinct x values), joined (drawn as a line), ci (an error bar of non-zero
    length)}] (errorbar series and bar groups), "bars" (bars drawn)}, "text": every text}."""
    from matplotlib.text import Text
    panels = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        series = []
        for c in ax.containers:
            if isinstance(c, ErrorbarContainer) and not c.get_label().startswith("_"):
                line = c.lines[0]
                series.append(dict(label=c.get_label(), n_x=len(set(line.get_xdata())),
                                   joined=line.get_linestyle() not in ("None", "none", ""),
                                   ci=_spread(c)))
            elif isinstance(c, BarContainer):
                series.append(dict(label=c.get_label(), n_x=len(c.patches), joined=False,
                                   ci=c.errorbar is not None and _spread(c.errorbar)))
        panels.append(dict(title=ax.get_title(), labels=ax.get_legend_handles_labels()[1],
                           series=series, bars=sum(len(c.patches) for c in ax.containers
                                                   if isinstance(c, BarContainer))))
    legends = fig.legends or [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    return {"legend": [t.get_text() for leg in legends for t in leg.get_texts()],
            "panels": panels, "text": "\n".join(t.get_text() for t in fig.findobj(Text))}


@pytest.fixture
def drawn(monkeypatch):
    """{png stem: facts(figure)}, filled as charts.save writes each PNG."""
    out, save = {}, charts.save

    def recording_save(fig, out_dir, stem):
        out[stem] = facts(fig)
        return save(fig, out_dir, stem)
    monkeypatch.setattr(charts, "save", recording_save)
    return out


def check_rules(f, ci=True):
    """The rules every chart keeps: no empty panel, at most MAX_SERIES series in one, no
    line through one x value, and (ci) a 95% CI drawn on every series."""
    assert f["panels"]
    for p in f["panels"]:
        assert p["series"] or p["bars"], p["title"]
        assert len(p["labels"]) <= charts.MAX_SERIES, p["labels"]
        for s in p["series"]:
            assert s["n_x"] >= 2 or not s["joined"], s
            if ci:
                assert s["ci"], s


def run_of(path):
    loaded = res.load_csvs([path])
    run_id = res.select_run(loaded)
    cases = res.collect_cases(loaded, run_id)
    return Run(loaded, run_id, cases), res.run_info(loaded, run_id), cases


@pytest.fixture(scope="module")
def bulk(tmp_path_factory):
    """(Run, info) of test_bulk's synthetic run: every Bulk data claim's rows."""
    run, info, _ = run_of(write_csv(tmp_path_factory.mktemp("bulk") / "bulk.csv",
                                    synthetic_rows()))
    return run, info


# --- the shared pieces ----------------------------------------------------------------------

def test_ns_per_op_ci_is_the_bootstrap_ci_of_the_reps(bulk):
    run, _ = bulk
    st = run.cases[("iterate", "peer_colony", 100000, 8, "seq", 0.5, "random")]
    ci = res.ns_per_op_ci(st)
    assert ci.ratio == st.ns_per_op == pytest.approx(2.0, rel=1e-4)
    assert ci.low < ci.ratio < ci.high and ci.high / ci.low < 1.05  # reps 1% apart
    assert res.ns_per_op_ci(st) == ci  # seeded: the same rows, the same interval
    few = type(st)(**{**st.__dict__, "per_op_ns": st.per_op_ns[:2]})
    assert res.ns_per_op_ci(few).low is None  # under MIN_REPS: no CI
    bare = type(st)(**{**st.__dict__, "per_op_ns": ()})
    assert res.ns_per_op_ci(bare).ratio == st.ns_per_op and res.ns_per_op_ci(bare).high is None


def test_every_scenario_has_one_unit():
    names = set()
    for path in (REPO / "scenarios").glob("*.c"):
        names |= set(re.findall(r'^\s*\.name = "([a-z0-9_]+)"', path.read_text(), re.M))
    scenarios = {n for n in names if not n.startswith("axis_")}
    assert scenarios and scenarios <= set(charts.OP_UNITS)
    assert charts.op_unit("iterate") == "ns per live item"  # holes skipped, not counted
    assert charts.op_unit("made_up").startswith("ns per operation")


def test_one_point_is_a_marker_not_a_line():
    fig, ax = charts.subplots()
    ci = res.bench_stats.RatioCI(2.0, 1.5, 2.5, 0.95)
    charts.plot_ci(ax, [1], [ci], ("C0", "-", "o"), "one")
    charts.plot_ci(ax, [1, 2], [ci, ci], ("C1", "-", "o"), "two")
    f = facts(fig)
    assert [(s["label"], s["joined"], s["ci"]) for s in f["panels"][0]["series"]] == [
        ("one", False, True), ("two", True, True)]


# --- the Bulk data charts -------------------------------------------------------------------

def test_iterate_vs_holes_draws_the_claims_designs_article_first(bulk, drawn, tmp_path):
    run, info = bulk
    assert bc.chart_iterate_vs_holes(run, info, tmp_path)[0]
    f = drawn["iterate_vs_holes"]
    check_rules(f)
    assert f["legend"] == [
        "bulk_holes_vm (holes: the article's design, on its storage)",  # A30's storage
        "bulk_holes_realloc (holes, best other storage)",
        "bulk_holes_runs_vm (holes_runs, best storage)",                # A7
        "bulk_holes_bitmask_vm (holes_bitmask, best storage)",
        "bulk_swappop_realloc (swappop, dense, best storage)",          # A5, A6
        "peer_colony (plf::colony)",
        "plain_array (dense, no holes)"]
    assert [p["title"] for p in f["panels"]] == ["pattern random", "pattern clustered"]
    assert all(len(p["series"]) == 6 for p in f["panels"])
    assert "ns per live item" in f["text"] and "95% bootstrap CI" in f["text"]


def test_push_latency_draws_the_mean_push_and_the_growth_spike(bulk, drawn, tmp_path):
    run, info = bulk
    assert bc.chart_push_latency(run, info, tmp_path, 10000)[1] == "holes"
    f = drawn["push_latency"]
    check_rules(f)
    mean, worst = f["panels"]
    assert [s["label"] for s in mean["series"]] == [  # A13: constgrow's mean push
        "realloc (bulk_holes_realloc)", "fixblocks (bulk_holes_fixblocks)",
        "vm (bulk_holes_vm)", "constgrow (bulk_holes_constgrow)"]
    assert [s["label"] for s in worst["series"]] == [  # A10: the pushes that grew
        "realloc: pushes that grew the buffer", "realloc: its other pushes",
        "fixblocks: every push", "vm: every push"]
    assert "target: below 10 µs (vm, fixblocks)" in worst["labels"]
    assert "ns per push" in f["text"]


def test_memory_draws_the_holes_design_per_strategy_and_after_erasing(bulk, drawn, tmp_path):
    run, info = bulk
    assert bc.chart_memory(run, info, tmp_path)
    f = drawn["memory"]
    check_rules(f, ci=False)  # exact byte counts
    assert f["legend"] == ["holes on realloc", "holes on fixblocks", "holes on vm",
                           "after erasing a random half"]
    (panel,) = f["panels"]
    assert panel["title"].startswith("8-byte items") and panel["bars"] == 6  # 3 x 2 n
    assert "no memory rows of holes on static, constgrow" in f["text"]  # A9's static


def test_layouts_draw_the_claimed_layouts_with_cis(bulk, drawn, tmp_path):
    run, info = bulk
    assert bc.chart_layouts(run, BULK_CLAIMS, info, tmp_path)
    f = drawn["layouts"]
    check_rules(f)
    assert f["legend"][:4] == ["soa", "aosoa8", "aosoa16", "aos_block_soa"]
    assert "soa_staggered" not in f["legend"] and "soa_staggered" in f["text"]
    assert any(label.startswith("article: SoA tick") for label in f["legend"])


def test_removal_tradeoff_draws_swappop_beside_the_hash_peers(bulk, drawn, tmp_path):
    run, info = bulk
    assert bc.chart_tradeoff(run, info, tmp_path)
    f = drawn["removal_tradeoff"]
    check_rules(f)
    assert f["legend"] == [
        "bulk_holes_vm (holes: the article's design, on its storage)",
        "bulk_holes_realloc (holes, best other storage)",
        "bulk_swappop_realloc (swappop, dense, best storage)",
        "peer_unordered_map (hash table: id -> item)", "peer_stb_arr (hash table: id -> item)",
        "plain_array (dense, no holes)"]
    assert [p["title"] for p in f["panels"]] == ["lookup, random order", "iterate"]
    lookup = f["panels"][0]
    assert all(s["n_x"] == 1 and not s["joined"] for s in lookup["series"])  # one ratio
    assert "ns per lookup (one per live item)" in f["text"]


# --- the every-case charts ------------------------------------------------------------------

def lookup_rows():
    """lookup at three n in sequential order (8 B) and two in random order (16 B): the
    handle_map article's unordered_map slower than a hash-table peer, a dozen bulk
    variants faster than every peer, one variant measured at one n."""
    out = []
    speed = {"plain_array": 1.0, "peer_unordered_map": 20.0, "peer_stb_arr": 6.0,
             "peer_colony": 8.0}
    speed.update({c: 2.0 + i / 10 for i, c in enumerate(
        c for c in ("bulk_holes_static", "bulk_holes_realloc", "bulk_holes_fixblocks",
                    "bulk_holes_vm", "bulk_holes_runs_vm", "bulk_holes_bitmask_vm",
                    "bulk_swappop_realloc", "bulk_swappop_vm"))})
    for c, ns in speed.items():
        for n in (1000, 10000, 100000):
            out += rows_of(c, "lookup", n, ns * (1 + n / 1e6))
        for n in (100000, 1000000):
            if c != "peer_unordered_map" or n == 100000:  # random order: one n of it
                out += rows_of(c, "lookup", n, 3 * ns, 16, order="random")
    out += rows_of("bulk_shift_realloc", "lookup", 100000, 0.5)  # one n: no line
    return out


def test_lookup_vs_n_has_a_panel_per_order_and_the_articles_peers(tmp_path, drawn):
    _, info, cases = run_of(write_csv(tmp_path / "lookup.csv", lookup_rows()))
    out = cs.render_case_charts(cases, info, tmp_path / "cases")
    assert [w for w, _ in out["lookup"]] == [
        "n (order seq: 8-byte items, no holes; order random: 16-byte items, no holes)"]
    f = drawn["lookup_vs_n"]
    check_rules(f)
    assert [p["title"] for p in f["panels"]] == ["order seq: 8-byte items, no holes",
                                                 "order random: 16-byte items, no holes"]
    assert len(f["legend"]) == charts.MAX_SERIES
    assert f["legend"][:4] == [  # the articles' peers and the baseline first, though slow
        "peer_unordered_map (peer)", "peer_colony (peer)", "peer_stb_arr (peer)",
        "plain_array (baseline)"]
    assert not any(label.startswith("bulk_shift_realloc") for label in f["legend"])
    random = {s["label"]: s for s in f["panels"][1]["series"]}
    assert random["peer_unordered_map (peer)"]["n_x"] == 1  # a point where it has one n
    assert "ns per lookup (one per live item)" in f["text"]


def test_iterate_vs_holes_case_chart_draws_the_hole_designs_first(bulk, drawn, tmp_path):
    run, info = bulk
    iterate = {k: st for k, st in run.cases.items() if k[0] == "iterate"}
    assert cs.render_case_charts(iterate, info, tmp_path)
    f = drawn["iterate_vs_holes"]
    check_rules(f)
    assert f["legend"][:4] == [
        "bulk_holes_realloc (bulk, best of 4 holes variants)",  # ties: the first name
        "bulk_holes_runs_vm (bulk)", "bulk_holes_bitmask_vm (bulk)", "peer_colony (peer)"]
    assert "plain_array (no holes)" in f["legend"]  # the dense reference line
    assert len(f["legend"]) <= charts.MAX_SERIES
    assert "ns per live item" in f["text"]


# --- the other articles' charts -------------------------------------------------------------

def test_walk_chart_draws_one_length_as_bars(tmp_path, drawn):
    designs = {ac.VEC: 1.0, ac.VECTORS[1]: 1.2, ac.LINKED: 5.0, ac.CHUNK8: 3.0, ac.SORTED: 1.1}
    rows = []
    for c, ns in designs.items():
        for dist, per in (("game", 4), ("three", 3), ("upto8", 4.5)):
            rows += tags(c, "tags_walk", 10000, ns, dist, ops=round(per * 10000))
        rows += tags(c, "tags_walk", 1000000, 4 * ns, "game")
    run, info, _ = run_of(write(tmp_path / "walk.csv", rows, AOA_HEADER))
    assert ac.chart_walk(run, info, tmp_path)
    f = drawn["aoa_walk"]
    check_rules(f)
    assert f["legend"] == [ac.VEC, ac.VECTORS[1], ac.LINKED, ac.CHUNK8, ac.SORTED]
    small, large = f["panels"]
    assert all(s["joined"] and s["n_x"] == 3 for s in small["series"])
    assert large["bars"] == 5 and not any(s["joined"] for s in large["series"])
    assert "ns per tag walked" in f["text"]


def test_handle_map_table_bars_carry_cis(tmp_path, drawn):
    rows = []
    for scenario in ("create", "iterate", "lookup", "clear"):
        rows += table(scenario, 1.0, {hmc.PEERS[0]: 5.0, hmc.PEERS[1]: 8.0})
    path = write(tmp_path / "hm.csv", rows, HM_HEADER)
    loaded = res.load_csvs([path])
    run_id = res.select_run(loaded)
    article = hmc.load_article(REPO / "reports" / "data" / "handle_map_article.csv")
    handle_map.render_chart(res.aggregate(loaded, run_id), res.run_info(loaded, run_id),
                            article, tmp_path)
    f = drawn["handle_map_table"]
    check_rules(f)
    assert f["legend"][:3] == [hmc.HM, *hmc.PEERS]  # the article's design first


def test_defrag_steps_chart_draws_cis(tmp_path, drawn):
    rows = lap_noise(50000.0)
    for inp, scale in (("shuffled", 100.0), ("near_sorted", 1.0)):
        for swaps in (16, 256):
            rows += steps(inp, swaps, 0.5, calls=10, worst=scale * swaps)
    run, info, _ = run_of(write(tmp_path / "steps.csv", rows, HM_HEADER))
    assert hmc.chart_defrag_steps(run, info, tmp_path)
    f = drawn["handle_map_defrag_steps"]
    check_rules(f)
    assert f["legend"] == ["shuffled, n=10000", "near_sorted, n=10000", "budget 1.67 ms",
                           "machine floor: max of n empty samples (lap_noise)"]


def test_sorted_insert_chart_draws_the_vector_first_with_cis(tmp_path, drawn):
    rows = sorted_insert({lc.VECTOR: 1.0, lc.POINTER[0]: 3.0, lc.POINTER[1]: 3.0,
                          lc.HOSTED[0]: 2.0}, (1000, 10000))
    run, info, _ = run_of(write(tmp_path / "si.csv", rows))
    assert lc.chart_sorted_insert(run, info, tmp_path)
    f = drawn["lists_sorted_insert"]
    check_rules(f)
    assert f["legend"][:2] == [lc.VECTOR, lc.POINTER[0]]
    assert charts.op_unit("sorted_insert") in f["text"]


def test_a_scenario_without_two_points_of_a_container_has_no_chart_and_says_so(tmp_path):
    rows = rows_of("plain_array", "churn", 10000, 5.0) + rows_of("peer_colony", "churn",
                                                                 100000, 9.0)
    _, info, cases = run_of(write_csv(tmp_path / "churn.csv", rows))
    assert cs.render_case_charts(cases, info, tmp_path / "cases") == {}  # one n each
    page = cs.render_scenario_page("churn", cases, info, "plain_array", [])
    assert "No chart: no container was measured at 2 or more sizes n" in page
