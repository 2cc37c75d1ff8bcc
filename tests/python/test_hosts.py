"""The cross-machine report (reports/hosts.py): built from the committed example (two
simulated cache hierarchies as two hosts) it is the committed HOSTS.md; its ratios are
callgrind's estimated cycles for a simulated host and times with a CI for a measured one;
a claim whose class differs between hosts is tabled with the hosts' caches; bad input is a
clear error (exit 2, no traceback)."""
import csv
import lzma
import shutil
import subprocess
import sys

import pytest

from test_cli import BIN, ROOT

sys.path.insert(0, str(ROOT / "reports"))
import claims as claims_data  # noqa: E402
import hosts  # noqa: E402
import verdicts as vd  # noqa: E402

EXAMPLE = ROOT / "results" / "hosts-example"
HOSTS = [EXAMPLE / "sim-small", EXAMPLE / "sim-large"]


def run(*args):
    return subprocess.run([sys.executable, str(ROOT / "reports" / "hosts.py"), *map(str, args)],
                          capture_output=True, text=True, cwd=ROOT)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("hosts")
    # the committed layout: the report beside the host directories (its links are relative)
    for h in HOSTS:
        shutil.copytree(h, out / h.name)
    got = run("--out-dir", out / "report", *(out / h.name for h in HOSTS))
    assert got.returncode == 0, got.stderr
    return out / "report"


def test_the_committed_example_is_what_the_code_builds_now(built):
    assert (built / "HOSTS.md").read_text() == (EXAMPLE / "report" / "HOSTS.md").read_text(), \
        "make hosts-example regenerates the committed example"


def test_the_report_shows_both_hosts_four_ratio_charts_and_the_claims(built):
    text = (built / "HOSTS.md").read_text()
    assert "| sim-small | simulated (callgrind) | AMD EPYC | L1D 32 KiB, LLC 1 MiB (simulated)" \
        in text and "L1D 48 KiB, LLC 32 MiB (simulated)" in text
    for ratio in hosts.KEY_RATIOS:
        assert (built / f"{ratio.slug}.png").stat().st_size > 0
        assert f"### {ratio.title}" in text and f"]({ratio.slug}.png)" in text
    assert "## Claims whose class differs between hosts" in text
    for h in HOSTS:
        assert (built / h.name / "RESULTS.md").exists()  # each host's own report
        assert f"[RESULTS.md]({h.name}/RESULTS.md)" in text


def test_the_example_has_a_claim_that_flips_with_the_simulated_llc(built):
    # SoA's tick reads 4 B a particle: at n=300000 its 1.14 MiB exceed sim-small's 1 MiB LL
    # (memory-bound there: A20 judged) and fit sim-large's 32 MiB one (not exercised)
    text = (built / "HOSTS.md").read_text()
    table = text[text.index("## Claims whose class differs between hosts"):]
    assert "| claim | article | what | sim-small (L1D 32 KiB, LLC 1 MiB (simulated)) | " \
        "sim-large (L1D 48 KiB, LLC 32 MiB (simulated)) |" in table
    row = next(line for line in table.splitlines() if line.startswith("| A20 |"))
    assert row.endswith(f"| {vd.CONFIRMED} | {vd.PREMISE_NOT_EXERCISED} |")


def cycles_per_op(host, container, scenario, n):
    """A committed simulated run's estimated cycles per operation of one case: the median
    over its repetitions (3 of them)."""
    with lzma.open(host / f"bench-hosts-{host.name}.csv.xz", "rt") as f:
        got = sorted(hosts.estimated_cycles(r) / int(r["ops"]) for r in csv.DictReader(f)
                     if (r["container"], r["scenario"], r["n"]) == (container, scenario, str(n)))
    assert len(got) == 3
    return got[1]


def test_a_simulated_host_compares_estimated_cycles(built):
    text = (built / "HOSTS.md").read_text()
    table = text[text.index("### SoA / AoS"):text.index("### chunked")]
    for h in HOSTS:
        ratio = (cycles_per_op(h, "particles_soa", "simulate", 300000)
                 / cycles_per_op(h, "particles_aos", "simulate", 300000))
        cells = next(line for line in table.splitlines() if line.startswith("| 300000 |"))
        cell = cells.strip("|").split("|")[1 + HOSTS.index(h)].strip()
        assert cell.startswith(f"{hosts.md.fmt(ratio)}× [") and cell.endswith("(particles_soa)")
        lo, hi = map(float, cell[cell.index("[") + 1:cell.index("]")].split(","))
        assert lo <= float(hosts.md.fmt(ratio)) <= hi  # the CI of 3 repetitions' counts


def test_a_measured_host_beside_a_simulated_one_gets_ratios_with_a_ci(tmp_path):
    real = tmp_path / "desk"
    real.mkdir()
    got = subprocess.run([BIN, "run", "--container", "plain_array,bulk_holes_realloc",
                          "--scenario", "lookup", "--order", "random", "--n", "2000",
                          "--reps", "5", "--warmup", "0", "--quiet", "--out",
                          str(real / "bench-desk.csv")], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    got = run("--out-dir", tmp_path / "report", real, HOSTS[0])
    assert got.returncode == 0, got.stderr
    text = (tmp_path / "report" / "HOSTS.md").read_text()
    assert "| desk | measured |" in text
    weak = text[text.index("### weak-pointer lookup"):text.index("### SoA")]
    line = next(line for line in weak.splitlines() if line.startswith("| 2000 |"))
    assert "× [" in line.split("|")[2] and "(bulk_holes_realloc)" in line  # ratio [CI]


def test_a_simulated_hosts_complexity_comes_from_its_instruction_counts(built):
    # its estimated cycles cross the simulated levels (no class); Ir per op does not
    text = (built / "sim-small" / "RESULTS.md").read_text()
    assert "no clean fit for 10 whose sizes cross a cache level" in text
    assert "From operation counts (callgrind's instructions per operation, run " \
        "`hosts-sim-small`, 12 cases at 3 or more sizes): O(1) for 12" in text


def fake_host(name, simulated, caches, classes):
    return hosts.Host(name, f"{name}.csv", simulated, caches, classes=classes)


def test_a_claim_whose_class_differs_is_tabled_with_each_hosts_caches():
    claims = claims_data.load_claims()
    first, second = claims[0], claims[1]
    a = fake_host("small", True, {"L1D": 32 << 10, "LLC": 1 << 20},
                  {first.id: vd.CONFIRMED, second.id: vd.REFUTED})
    b = fake_host("big", False, {"L1D": 48 << 10, "L2": 2 << 20, "LLC": 32 << 20},
                  {first.id: vd.REFUTED, second.id: vd.REFUTED})
    text = "\n".join(hosts.claim_lines([a, b], claims))
    assert f"1 of {len(claims)} differ between hosts (2 decided on every host" in text
    assert "| claim | article | what | small (L1D 32 KiB, LLC 1 MiB (simulated)) | big (L1D " \
        "48 KiB, L2 2 MiB, LLC 32 MiB) |" in text
    row = next(line for line in text.splitlines() if line.startswith(f"| {first.id} |"))
    assert row.endswith(f"| {vd.CONFIRMED} | {vd.REFUTED} |")
    assert f"| {second.id} |" not in text  # the same class on both: not listed
    b.classes[first.id] = vd.CONFIRMED
    assert "Every host gives every claim the same class." in "\n".join(
        hosts.claim_lines([a, b], claims))


def test_bad_input_is_a_clear_error(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = [([HOSTS[0]], "two host directories or more"),
             ([empty, HOSTS[0]], "expected one run CSV"),
             ([HOSTS[0], tmp_path / "sim-small"], "two host directories named sim-small"),
             ([tmp_path / "missing", HOSTS[0]], "not a directory")]
    (tmp_path / "sim-small").mkdir()
    for dirs, message in cases:
        got = run("--out-dir", tmp_path / "out", *dirs)
        assert got.returncode == 2 and message in got.stderr and "Traceback" not in got.stderr
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bench-bad.csv").write_text("schema,timestamp\n4,garbage\n")
    got = run("--out-dir", tmp_path / "out", bad, HOSTS[0])
    assert got.returncode == 2 and "bench-bad.csv" in got.stderr and "Traceback" not in got.stderr
    mixed = tmp_path / "mixed"  # the rows of two simulated hierarchies as one host
    mixed.mkdir()
    lines = [lzma.open(h / f"bench-hosts-{h.name}.csv.xz", "rt").read().splitlines()
             for h in HOSTS]
    (mixed / "bench-mixed.csv").write_text("\n".join(lines[0] + lines[1][1:]) + "\n")
    got = run("--out-dir", tmp_path / "out", mixed, HOSTS[0])
    assert got.returncode == 2 and "holds one cache hierarchy, this one 2" in got.stderr


def test_two_directories_of_one_host_are_refused(tmp_path):
    # the same run under two names: one host (its rows' host, CPU and simulated hierarchy)
    for name in ("desk", "desk-again"):
        shutil.copytree(HOSTS[0], tmp_path / name)
    got = run("--out-dir", tmp_path / "out", tmp_path / "desk", tmp_path / "desk-again")
    assert got.returncode == 2 and "Traceback" not in got.stderr
    assert "runs of one host" in got.stderr and "simulated D1 32768:8:64" in got.stderr
    assert not (tmp_path / "out" / "HOSTS.md").exists()


def test_a_simulated_hosts_own_report_fits_its_operation_counts(built):
    for h in HOSTS:
        page = (built / h.name / "cases" / "complexity.md").read_text()
        assert page == (EXAMPLE / "report" / h.name / "cases" / "complexity.md").read_text()
        counts = page[page.index("### From operation counts"):]
        # the instructions per operation at 3 sizes: one row per case of the sweep
        line = next(li for li in counts.splitlines()
                    if li.startswith("| lookup/plain_array/elem:8/order:random |"))
        assert "3000…300000 (3 sizes) | O(1) |" in line


def test_a_simulated_host_is_labelled_so_on_the_charts():
    sim = fake_host("sim-small", True, {"L1D": 32 << 10, "LLC": 1 << 20}, {})
    real = fake_host("desk", False, {"L1D": 48 << 10, "LLC": 32 << 20}, {})
    assert hosts.host_label(sim) == "sim-small\nLLC 1 MiB (simulated)"
    assert hosts.host_label(real) == "desk\nLLC 32 MiB"


def write_iterate_host(d, name, ll, slow):
    """A hand-made simulated host: the committed sim-small run's iterate rows (the A7 rule's:
    holes_runs against holes), its LL given as ll, bulk_holes_realloc's counts x slow."""
    d.mkdir()
    with lzma.open(HOSTS[0] / "bench-hosts-sim-small.csv.xz", "rt") as f:
        reader = csv.DictReader(f)
        rows = [r for r in reader if r["scenario"] == "iterate"]
    with open(d / f"bench-{name}.csv", "w", newline="") as f:
        w = csv.DictWriter(f, reader.fieldnames, lineterminator="\n")
        w.writeheader()
        for r in rows:
            r["sim_ll"] = ll
            if r["container"] == "bulk_holes_realloc":
                for c, _ in hosts.CEST:
                    r[c] = str(int(r[c]) * slow)
            w.writerow(r)


def test_rows_that_flip_a_rule_give_a_differing_claim(tmp_path):
    # A7 (holes_runs skips runs: faster than holes): refuted on the committed counts, where
    # the run-skipping loop costs more; confirmed where the holes variant's counts are 10x
    write_iterate_host(tmp_path / "a", "a", "1048576:16:64", 1)
    write_iterate_host(tmp_path / "b", "b", "2097152:16:64", 10)
    got = run("--out-dir", tmp_path / "out", tmp_path / "a", tmp_path / "b")
    assert got.returncode == 0, got.stderr
    text = (tmp_path / "out" / "HOSTS.md").read_text()
    assert "1 of 67 differ between hosts" in text
    row = next(li for li in text.splitlines() if li.startswith("| A7 |"))
    assert row.endswith(f"| {vd.REFUTED} | {vd.CONFIRMED} |")
    assert "| a (L1D 32 KiB, LLC 1 MiB (simulated)) | b (L1D 32 KiB, LLC 2 MiB (simulated)) |" \
        in text
