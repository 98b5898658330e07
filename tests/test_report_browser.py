"""Open the report in real headless Chromium: no console errors, every image decodes,
the table sorts, and a screenshot is saved under tests/artifacts/."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from suite.bench.synthetic_store import write_synthetic_run
from suite.report import build_report

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).parent / "artifacts"

# Written into the DOM once the page has loaded, so --dump-dom carries the verdicts out. A figure
# is "blank" when a 64x64 draw of it has under 2% of pixels that are not near-white.
PROBE = """
<script>
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var broken = images.filter(function (img) { return !(img.complete && img.naturalWidth > 0); });
  var canvas = document.createElement("canvas");
  canvas.width = canvas.height = 64;
  var context = canvas.getContext("2d");
  var blank = images.filter(function (img) {
    context.fillStyle = "#fff"; context.fillRect(0, 0, 64, 64);
    context.drawImage(img, 0, 0, 64, 64);
    var data = context.getImageData(0, 0, 64, 64).data, inked = 0;
    for (var i = 0; i < data.length; i += 4) {
      if (data[i] + data[i + 1] + data[i + 2] < 720) { inked++; }
    }
    return inked < 0.02 * 64 * 64;
  });
  var header = document.querySelectorAll("#trial-table th")[5];  // column K
  header.click(); header.click();  // descending
  var firstK = document.querySelector("#trial-table tbody tr").cells[5].textContent;
  var overflow = document.documentElement.scrollWidth - window.innerWidth;
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = "images=" + images.length + " broken=" + broken.length + " blank=" +
    blank.length + " first_k=" + firstK + " overflow=" + overflow;
  document.body.appendChild(out);
});
</script>
"""


def chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing; install it with apt-get install -y chromium")
    folder = tmp_path_factory.mktemp("browser")
    run = write_synthetic_run(folder / "run", 48, 20, seed=2)
    return build_report(run, folder / "report.html")


def console_errors(stderr: str) -> list[str]:
    return [
        line
        for line in stderr.splitlines()
        if "CONSOLE" in line and ("Uncaught" in line or ":ERROR:" in line or "Error" in line)
    ]


@pytest.mark.parametrize("width", [800, 1400])
def test_report_loads_cleanly_in_chromium(report, tmp_path, width):
    probed = tmp_path / "probed.html"
    probed.write_text(report.read_text().replace("</body>", PROBE + "</body>"))
    result = chromium(tmp_path, f"--window-size={width},2000", "--dump-dom", probed.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_errors(result.stderr) == []
    verdict = re.search(
        r'<pre id="probe">images=(\d+) broken=(\d+) blank=(\d+) '
        r"first_k=(\S+) overflow=(-?\d+)</pre>",
        result.stdout,
    )
    assert verdict, "the probe never ran: " + result.stdout[-500:]
    images, broken, blank, first_k, overflow = verdict.groups()
    # across envs: evidence; per env: 2 evidence, 3 Ks of curves, 8 maps, buffer
    assert int(images) == 1 + 2 * (2 + 3 + 8 + 1)
    assert int(broken) == 0
    assert int(blank) == 0
    assert first_k == "4"  # the largest K first after sorting descending
    assert int(overflow) <= 0  # nothing wider than the window: no sideways scrolling


@pytest.mark.parametrize("width", [800, 1400])
def test_screenshot_is_saved(report, tmp_path, width):
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"report-{width}.png"
    shot.unlink(missing_ok=True)
    result = chromium(
        tmp_path, f"--screenshot={shot}", f"--window-size={width},2400", report.as_uri()
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_errors(result.stderr) == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert shot.stat().st_size > 20_000
