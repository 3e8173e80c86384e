"""cuda/bench/compare_runs.py: two cuda_bench runs side by side (ctest:
bench.compare_runs)."""
import gzip
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "cuda", "bench"))
import compare_runs  # noqa: E402


def case(op, median, p10, p90, dtype="bf16", heads=1):
    return {"op": op, "dir": "bwd", "dtype": dtype, "rows": 1024, "cols": 65536, "heads": heads,
            "fused": {"median_ms": median, "p10_ms": p10, "p90_ms": p90}}


def run(device, *cases):
    return {"device": {"name": device}, "commit": "abc", "results": list(cases)}


def write(path, doc, zipped=False):
    opener = gzip.open if zipped else open
    with opener(path, "wt") as f:
        json.dump(doc, f)
    return str(path)


def test_ratios_their_noise_mark_and_the_cases_of_one_run_alone(tmp_path, capsys):
    a = write(tmp_path / "a.json", run("H", case("rmsnorm", 1.0, 0.99, 1.01),
                                       case("dyt", 2.0, 1.9, 2.1), case("seednorm", 1.0, 0.9, 1.1),
                                       case("layernorm", 1.0, 0.99, 1.01)))
    b = write(tmp_path / "b.json.gz", run("H", case("rmsnorm", 0.9, 0.89, 0.91),
                                          case("dyt", 2.2, 2.15, 2.3),
                                          case("seednorm", 1.05, 1.0, 1.1),
                                          case("seednorm", 1.0, 0.9, 1.1, heads=16)), zipped=True)
    assert compare_runs.main([a, b, "--names", "front,back"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.split()[1:2] == ["bwd"]}
    assert rows["rmsnorm"].endswith("0.900<")  # back faster, the spreads apart
    assert rows["dyt"].endswith("1.100>")
    assert rows["seednorm"].endswith("1.050~")  # within the spreads
    assert "only in front: layernorm" in out
    assert "only in back: seednorm" in out and "h16" in out


def test_refuses_two_devices_and_runs_with_no_common_case(tmp_path, capsys):
    a = write(tmp_path / "a.json", run("H100", case("rmsnorm", 1.0, 0.9, 1.1)))
    b = write(tmp_path / "b.json", run("H200", case("rmsnorm", 1.0, 0.9, 1.1)))
    assert compare_runs.main([a, b]) == 1
    assert "two devices" in capsys.readouterr().err
    c = write(tmp_path / "c.json", run("H100", case("dyt", 1.0, 0.9, 1.1)))
    assert compare_runs.main([a, c]) == 1
    assert "no case is in both" in capsys.readouterr().err
    assert compare_runs.main([a, str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err
