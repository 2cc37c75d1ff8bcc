"""The tags scenarios (scenarios/tags_*.c; the arrays-of-arrays family, issue 17).

They run on the containers with the tags extension, found by the exts column of `list
containers`, never by a list kept here. Checks: every tags scenario verifies on every tags
container at every --tag-dist (the scenarios check every entity's tags, the walk, the
counts and the container's check); ops, samples and the checksums are what each
scenario's opening comment says (tags_build: the refusals, 0 but for a fixed maximum;
tags_memory: unit bytes between 4 B a tag and the committed bytes); aoa_fixed8 refuses
tags exactly when a distribution goes past 8 a list; the other containers are skipped with
the extension's reason; a bad --tag-dist is refused before any work; the long lists
(each64, each1024) verify everywhere and aoa_vec_add16 allocates once per 16 tags there;
make bench and make bench-quick run them, make bench D7's long lists too. DODBENCH
overrides the binary (make test runs this against the ASan+UBSan build too).
"""
import csv
import re

import pytest

from test_cli import ROOT, cannot_run, run

SCENARIOS = ["tags_build", "tags_walk", "tags_has", "tags_churn", "tags_memory"]
DISTS = ["game", "three", "upto8", "upto32"]
LONG = {"each64": 64, "each1024": 1024}  # every entity exactly this many tags
VECTORS = ("aoa_vec_of_vecs", "aoa_vec_add16", "peer_std_vector_vector")  # one array a list


def exts():
    lines = run("list", "containers").stdout.splitlines()[1:]
    return {l.split()[0]: set(l.split()[6].split("|")) for l in lines}


@pytest.fixture(scope="module")
def tags():
    names = sorted(n for n, e in exts().items() if "tags" in e)
    if not names:
        pytest.skip("no container with the tags extension is registered")
    return names


def rows_of(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_every_tags_scenario_verifies_on_every_tags_container(tmp_path, tags):
    out = tmp_path / "t.csv"
    p = run("run", "--container", ",".join(tags), "--scenario", ",".join(SCENARIOS),
            "--n", "1,300", "--elem-bytes", "8", "--tag-dist", ",".join(DISTS),
            "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    assert {(r["scenario"], r["container"], r["axis_tag_dist"]) for r in rows} == \
        {(s, c, d) for s in SCENARIOS for c in tags for d in DISTS}
    for r in rows:
        assert r["status"] == "ok" and r["verified"] == "1", r
        n, k = int(r["n"]), int(r["passes"])
        if r["scenario"] == "tags_has":  # K passes of the n queries, each finding <= n
            assert int(r["ops"]) == k * n and int(r["checksum"]) <= k * n, r
        if r["scenario"] == "tags_churn":
            assert int(r["ops"]) == 100 and int(r["samples"]) == 100, r
        if r["scenario"] == "tags_memory":
            stored = int(r["ops"])
            assert 4 * stored <= int(r["checksum"]) <= int(r["committed_bytes"]), r
            if r["allocs"] and n == 300:  # D1: a vector per entity is an allocation a list
                one_buffer = r["container"] not in VECTORS
                assert (int(r["allocs"]) < 100) if one_buffer else (int(r["allocs"]) >= n), r
        if r["scenario"] == "tags_build":
            refused = int(r["checksum"])
            may_refuse = r["container"] == "aoa_fixed8" and r["axis_tag_dist"] in ("game", "upto32")
            assert refused == 0 or may_refuse, r
            if r["axis_tag_dist"] == "three":
                assert int(r["ops"]) == 3 * n, r


def test_long_lists_verify_and_add16_allocates_per_16_tags(tmp_path, tags):
    """--tag-dist each64, each1024: every entity exactly 64 or 1024 tags, built, walked and
    measured on every tags container (aoa_fixed8 keeps 8 an entity); aoa_vec_add16 holds
    exactly L x 4 B a list and makes L / 16 allocations a list, aoa_vec_of_vecs log2 L + 1
    (the allocs column: empty under ASan)."""
    out = tmp_path / "long.csv"
    p = run("run", "--container", ",".join(tags), "--scenario", "tags_build,tags_walk,tags_memory",
            "--n", "1,40", "--tag-dist", ",".join(LONG), "--reps", "1", "--warmup", "0",
            "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = rows_of(out)
    assert len(rows) == 3 * 2 * 2 * len(tags)
    for r in rows:
        assert r["status"] == "ok" and r["verified"] == "1", r
        n, length = int(r["n"]), LONG[r["axis_tag_dist"]]
        kept = min(length, 8) if r["container"] == "aoa_fixed8" else length
        if r["scenario"] == "tags_build":
            assert int(r["ops"]) == length * n and int(r["checksum"]) == (length - kept) * n, r
        if r["scenario"] == "tags_memory":
            assert int(r["ops"]) == kept * n, r
            if r["container"] in ("aoa_vec_add16", "aoa_vec_of_vecs"):
                assert int(r["checksum"]) == 4 * length * n, r  # 64, 1024: no room to spare
            if r["allocs"] and r["container"] == "aoa_vec_add16":
                assert int(r["allocs"]) >= n * length // 16, r
            if r["allocs"] and r["container"] == "aoa_vec_of_vecs":
                assert int(r["allocs"]) < n * length.bit_length() + 16, r


def test_fixed8_refuses_past_eight_and_walks_what_it_kept(tmp_path, tags):
    if "aoa_fixed8" not in tags or "aoa_vec_of_vecs" not in tags:
        pytest.skip("needs aoa_fixed8 and aoa_vec_of_vecs")
    out = tmp_path / "f.csv"
    p = run("run", "--container", "aoa_fixed8,aoa_vec_of_vecs",
            "--scenario", "tags_build,tags_walk", "--n", "2000", "--tag-dist", "upto32",
            "--reps", "1", "--warmup", "0", "--out", str(out))
    assert p.returncode == 0, p.stdout + p.stderr
    by = {(r["scenario"], r["container"]): r for r in rows_of(out)}
    planned = int(by[("tags_build", "aoa_vec_of_vecs")]["ops"])
    refused = int(by[("tags_build", "aoa_fixed8")]["checksum"])
    assert int(by[("tags_build", "aoa_fixed8")]["ops"]) == planned
    assert refused > 0  # uniform 1..32: most lists pass 8
    def walked(container):  # per pass: tags_walk walks K times
        row = by[("tags_walk", container)]
        return int(row["ops"]) // int(row["passes"])
    assert walked("aoa_fixed8") == planned - refused
    assert walked("aoa_vec_of_vecs") == planned


def test_other_containers_are_skipped_with_the_reason(tmp_path, tags):
    other = "plain_array"
    p = run("run", "--container", other, "--scenario", ",".join(SCENARIOS), "--n", "100",
            "--elem-bytes", "8", "--reps", "1", "--warmup", "0", "--out", str(tmp_path / "o.csv"))
    assert p.returncode == 0, p.stdout + p.stderr
    scenarios, cases = cannot_run(p.stdout)[(other, "no tags extension: not an "
                                                    "arrays-of-arrays container")]
    assert sorted(scenarios) == sorted(SCENARIOS) and cases >= len(SCENARIOS)


def test_a_bad_tag_dist_is_refused_before_any_work(tmp_path):
    out = tmp_path / "r.csv"
    p = run("run", "--container", "all", "--scenario", "tags_walk", "--n", "100",
            "--tag-dist", "zipf", "--out", str(out))
    assert p.returncode == 2 and "--tag-dist" in p.stderr, p.stderr
    assert not out.exists()


def test_a_case_whose_tags_do_not_fit_in_memory_is_refused_with_the_sizes(tmp_path):
    """each1024 at n = 4M is 4G tags, ~128 GB at the plan's bound of 32 B a tag: the case
    fails with status oom and a message naming both sizes, before anything that size is
    touched (not the kernel's OOM killer)."""
    import os
    if os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") > 100 * 2**30:
        pytest.skip("more than 100 GiB of memory: 4G tags would fit")
    out = tmp_path / "big.csv"
    p = run("run", "--container", "aoa_vec_of_vecs", "--scenario", "tags_build", "--n",
            "4000000", "--tag-dist", "each1024", "--reps", "1", "--warmup", "0", "--out",
            str(out))
    assert p.returncode != 0, p.stdout
    text = p.stdout + p.stderr
    assert re.search(r"4096000000 tags \(--n 4000000, --tag-dist each1024\) need about "
                     r"[0-9.]+ GiB", text), text
    assert "OUT OF MEMORY" in text


def test_a_tags_plan_over_the_ulimit_is_refused_naming_it(tmp_path):
    """The tags plan's check compared with the machine's RAM (each1024 at n = 700k planned
    21.4 GiB on a 23.5 GiB machine and started): now with the smallest limit, here a
    256 MiB ulimit -v, which 10M tags at 32 B (0.3 GiB) pass; the case ends oom, named."""
    from test_cli import run_under_ulimit
    out = tmp_path / "u.csv"
    p = run_under_ulimit("-v", "run", "--container", "aoa_vec_of_vecs", "--scenario",
                         "tags_build", "--n", "10000", "--tag-dist", "each1024", "--reps", "1",
                         "--warmup", "0", "--quiet", "--out", str(out))
    assert p.returncode == 1, p.stdout + p.stderr
    [row] = list(csv.DictReader(out.open()))
    assert row["status"] == "oom"
    assert row["status_detail"] == ("tags plan: 10240000 tags (--n 10000, --tag-dist each1024) "
                                    "need about 0.3 GiB (32 B a tag); the limit here is 0.2 GiB "
                                    "(ulimit -v (RLIMIT_AS))"), row["status_detail"]


def sweep_lines(name):
    text = (ROOT / "sweeps" / name).read_text()
    return [l.split("#")[0].split() for l in text.splitlines() if l.split("#")[0].strip()]


def test_make_bench_and_bench_quick_run_the_tags_scenarios():
    """bench.txt's first line leaves them out (they have their own lines: every one at 10k
    entities, the walk and memory at 1M too); quick.txt's first line (`--scenario all`)
    runs them."""
    def scenarios(line):
        return line[line.index("--scenario") + 1].split(",")

    def runs(s, n):
        return any(s in scenarios(l) and n in l[l.index("--n") + 1].split(",") for l in bench[1:])
    bench = sweep_lines("bench.txt")
    for s in SCENARIOS:
        assert f"-{s}" in scenarios(bench[0]), s
        assert runs(s, "10000"), s
    assert runs("tags_walk", "1000000") and runs("tags_memory", "1000000")
    # D7: aoa_vec_add16 builds long lists beside aoa_vec_of_vecs, as many tags at 64 and
    # 1024 a list, and no other tags line runs it.
    d7 = {}
    for l in bench[1:]:
        names = l[l.index("--container") + 1].split(",")
        if "aoa_vec_add16" in names:
            assert "aoa_vec_of_vecs" in names and scenarios(l) == ["tags_build"], l
            for n in l[l.index("--n") + 1].split(","):
                for dist in l[l.index("--tag-dist") + 1].split(","):
                    d7[dist] = int(n) * LONG[dist]
        elif any(s.startswith("tags_") for s in scenarios(l)) and "all" in names:
            assert "-aoa_vec_add16" in names, l
    assert d7 == {"each64": 1024000, "each1024": 1024000}
    assert scenarios(sweep_lines("quick.txt")[0]) == ["all"]
