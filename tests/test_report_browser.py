"""Open the report in real headless Chromium: no console errors, every image decodes and is
not blank, the table sorts, the quickstart's page is under 5,000 px tall, and a screenshot is
saved under tests/artifacts/."""

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
# is "blank" when it is a single colour, or has no coloured (non-grey) pixel: every figure of the
# report draws its data in colour, so axes and grid alone (an empty panel) count as blank.
PROBE = """
<script>
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var broken = images.filter(function (img) { return !(img.complete && img.naturalWidth > 0); });
  var blank = images.filter(function (img) {
    var canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth; canvas.height = img.naturalHeight;
    var context = canvas.getContext("2d");
    context.drawImage(img, 0, 0);
    var data = context.getImageData(0, 0, canvas.width, canvas.height).data;
    var first = data[0] + "," + data[1] + "," + data[2], single = true, coloured = 0;
    for (var i = 0; i < data.length; i += 16) {
      var r = data[i], g = data[i + 1], b = data[i + 2];
      if (r + "," + g + "," + b !== first) { single = false; }
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) { coloured++; }
    }
    return single || coloured === 0;
  });
  var header = document.querySelectorAll("#trial-table th")[5];  // column K
  var firstK = "";
  if (header) {
    header.click(); header.click();  // descending
    firstK = document.querySelector("#trial-table tbody tr").cells[5].textContent;
  }
  var overflow = document.documentElement.scrollWidth - window.innerWidth;
  var out = document.createElement("pre");
  out.id = "probe";
  out.textContent = "images=" + images.length + " broken=" + broken.length + " blank=" +
    blank.length + " first_k=" + firstK + " overflow=" + overflow + " height=" +
    document.documentElement.scrollHeight;
  document.body.appendChild(out);
});
</script>
"""
PROBED = re.compile(
    r'<pre id="probe">images=(\d+) broken=(\d+) blank=(\d+) '
    r"first_k=(\S*) overflow=(-?\d+) height=(\d+)</pre>"
)
ATARI_SMOKE = Path(__file__).parents[1] / "results" / "example-atari_nk-smoke"
# at 1400 px: the quickstart's page, its first-screen regime block and per-panel legends included
ATARI_SMOKE_MAX_PX = 5_600


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


def probe(page: Path, tmp_path: Path, width: int) -> tuple[int, ...]:
    probed = tmp_path / "probed.html"
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    result = chromium(tmp_path, f"--window-size={width},2000", "--dump-dom", probed.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    assert console_errors(result.stderr) == []
    found = PROBED.search(result.stdout)
    assert found, "the probe never ran: " + result.stdout[-500:]
    images, broken, blank, first_k, overflow, height = found.groups()
    return int(images), int(broken), int(blank), first_k, int(overflow), int(height)


@pytest.mark.parametrize("width", [800, 1400])
def test_report_loads_cleanly_in_chromium(report, tmp_path, width):
    images, broken, blank, first_k, overflow, _ = probe(report, tmp_path, width)
    # across envs: evidence; per env: 2 evidence, 1 curves figure, 8 maps, buffer
    assert images == 1 + 2 * (2 + 1 + 8 + 1)
    assert broken == 0
    assert blank == 0
    assert first_k == "4"  # the largest K first after sorting descending
    assert overflow <= 0  # nothing wider than the window: no sideways scrolling


def test_the_quickstart_page_is_short_and_draws_no_blank_figure(tmp_path):
    page = build_report(ATARI_SMOKE, tmp_path / "atari.html")
    images, broken, blank, _, overflow, height = probe(page, tmp_path, 1400)
    assert images > 0 and broken == 0 and blank == 0
    assert overflow <= 0
    assert height < ATARI_SMOKE_MAX_PX, f"{height} px at 1400 px"


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
