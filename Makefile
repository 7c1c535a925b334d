# Agentdesk. `make run` builds and opens the app; `make test` runs every test.
# Both install the system packages they need first (Debian/Ubuntu, apt-get; sudo when not root).

SHELL   := /bin/bash
# Go may be installed outside PATH (/usr/local/go); scripts/go.sh finds or bootstraps it.
GO      := $(CURDIR)/scripts/go.sh
MODULE  := github.com/agentdesk/agentdesk
APPVER  := $(shell sed -n 's/^ *Version *= *"\(.*\)"/\1/p' FyneApp.toml)
GITREV  := $(shell git rev-parse --short HEAD 2>/dev/null)
VERSION ?= $(APPVER)$(if $(GITREV),+$(GITREV))
LDFLAGS := -X $(MODULE)/app.Version=$(VERSION)
BIN     := bin/agentdesk
DIST    := dist

.PHONY: pylib pytest pybench wheel all run build release release-bin deps test test-race vet fmt-check bench bench-export fuzz reliability package \
        package-windows test-windows package-check licenses icon ui-tour readme-screenshots clean

all: build

deps:
	@scripts/deps.sh build

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN) .

run: build
	./$(BIN)

# Every test: vet, formatting, the whole suite under a virtual display (GL tests need one)
# (DuckDB's Node.js client installed first, outside the clone, for the Parquet export's check),
# and the race detector over the engine and store packages.
test:
	@scripts/deps.sh test
	@scripts/duckdb-deps.sh >/dev/null
	$(GO) vet ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	GO=$(GO) scripts/check-imports.sh
	AGENTDESK_REQUIRE_BROWSER=1 xvfb-run -a $(GO) test -count=1 ./...
	AGENTDESK_REQUIRE_BROWSER=1 $(GO) test -count=1 -race ./store/... ./engine/... ./ui/...
	$(MAKE) pytest wheel
	GO=$(GO) LDFLAGS='$(LDFLAGS)' scripts/ui-tour.sh ui-tour 1024x700 1366x768

# The gridworld engine as a shared library, next to the Python package that loads it.
# Two builds: the engine alone (imports on machines without libGL or X11) and the engine with
# the OpenGL pov renderer (-tags agdgl), which the package loads when the system can.
PYLIB := bindings/python/agentdesk_gridworld/libagentdesk_gridworld.so
PYLIB_GL := bindings/python/agentdesk_gridworld/libagentdesk_gridworld_gl.so
pylib:
	$(GO) build -buildmode=c-shared -o $(PYLIB) ./bindings/gridworld
	$(GO) build -buildmode=c-shared -tags agdgl -o $(PYLIB_GL) ./bindings/gridworld
	rm -f $(PYLIB:.so=.h) $(PYLIB_GL:.so=.h)

# The Python package's tests, with Debian's python3 and pytest, against the real Gymnasium
# vendored beside the checkout (VENDOR_PYTHON; without it the Gymnasium tests are skipped, and
# under CI=true they fail: bindings/python/tests/conftest.py).
# The pov tests compare the library's frames with the Go renderer's, exported by the Go test.
VENDOR_PYTHON ?= $(CURDIR)/../shared/vendor/python
pytest: pylib
	@scripts/deps.sh test
	rm -rf $(CURDIR)/.pov-go && mkdir -p $(CURDIR)/.pov-go
	AGENTDESK_POV_EXPORT=$(CURDIR)/.pov-go xvfb-run -a $(GO) test -count=1 -run TestPOVConformance ./engine/render
	cd bindings/python && AGENTDESK_VENDOR_PYTHON=$(VENDOR_PYTHON) AGENTDESK_REQUIRE_GL=1 AGENTDESK_GO_POV=$(CURDIR)/.pov-go \
	  xvfb-run -a /usr/bin/python3 -m pytest -q tests
	rm -rf $(CURDIR)/.pov-go

# The Python package as a Linux wheel in dist/, with the engine library inside (Debian's
# python3-setuptools and python3-wheel); the check installs it into a fresh venv and steps it.
wheel: pylib
	@scripts/deps.sh wheel
	rm -rf bindings/python/build bindings/python/*.egg-info
	cd bindings/python && AGENTDESK_VERSION=$(APPVER) /usr/bin/python3 setup.py -q bdist_wheel -d ../../$(DIST)
	rm -rf bindings/python/build bindings/python/*.egg-info
	scripts/wheel-check.sh $(DIST)

# The Python API's speed against the Go engine's, side by side in one run (BENCHMARKS.md):
# the engine's own `gridworld bench --envs 2`, then Gymnasium's make_vec and VectorEnv.
pybench: pylib build
	cd bindings/python && AGENTDESK_BENCH_BIN=$(CURDIR)/$(BIN) PYTHONPATH=$(VENDOR_PYTHON) \
	  xvfb-run -a /usr/bin/python3 bench.py

# The UI tour alone: the real app under Xvfb and openbox at 1024x700, 1366x768 (the most common
# laptop screen) and 1920x1080 in both themes, every screen, tab and dialog, screenshots and
# visibility-<size>.json in ui-tour/ (scripts/ui-tour.sh says what fails it). make test tours
# the two laptop sizes.
ui-tour:
	@scripts/deps.sh test
	GO=$(GO) LDFLAGS='$(LDFLAGS)' scripts/ui-tour.sh ui-tour $(or $(SIZES),1024x700 1366x768 1920x1080)

# The README's screenshots, taken by the tour at 1280x720.
readme-screenshots:
	@scripts/deps.sh test
	GO=$(GO) LDFLAGS='$(LDFLAGS)' scripts/ui-tour.sh ui-tour 1280x720
	cp ui-tour/1280x720_light_home.png docs/screenshot-home.png
	cp ui-tour/1280x720_light_gridworld.png docs/screenshot-gridworld.png
	cp ui-tour/1280x720_light_explorer-open.png docs/screenshot-explorer.png
	cp ui-tour/1280x720_dark_demonstrations.png docs/screenshot-demonstrations.png
	cp ui-tour/1280x720_light_evaluation-open_0_results.png docs/screenshot-evaluation.png
	AGENTDESK_REQUIRE_BROWSER=1 AGENTDESK_WEB_SHOTS=$(CURDIR)/ui-tour/web $(GO) test -count=1 -run 'InABrowser' ./ui/web
	cp ui-tour/web/1280-likert.png docs/study-participant-desktop.png
	cp ui-tour/web/360-likert.png docs/study-participant-phone.png
	cp ui-tour/web/1280-chat.png docs/study-chat.png
	GO=$(GO) LDFLAGS='$(LDFLAGS)' scripts/ui-tour.sh ui-tour 1920x1080
	convert ui-tour/1920x1080_dark_study_roster-4.png -crop 1650x930+270+130 +repage docs/study-roster.png

bench:
	@scripts/deps.sh test
	xvfb-run -a $(GO) test -run '^$$' -bench . -benchmem ./...

# The Parquet export at full scale (scripts/export-bench.sh: 200k generated episodes without
# images beside the JSONL export, 8,334 with their screenshots, 2 GB of 512 KB frames beside the
# disk's own rate; peak RSS of each). Not run by CI: making the stores takes many minutes.
bench-export: build
	scripts/export-bench.sh

# Every fuzz target for FUZZTIME each (default 60s), minimisation bounded so the time goes to
# fuzzing; crashers stay in testdata/fuzz as regression seeds. Not run by CI.
fuzz:
	@scripts/deps.sh test
	FUZZTIME=$(or $(FUZZTIME),60s) scripts/fuzz.sh

# The long reliability loops CI skips: 20 kill -9 per writing pickle command on 100 MB of data,
# 10 SIGINT and 10 SIGTERM at random moments of the same commands, 500 corrupted inputs per kind
# (pickles, Odyssey folders, evaluation projects, templates), the 300k-step annotation file
# imported under 250 MB peak RSS, and 100 MB JSONL lines of an evaluation project (one long
# text; 2.7 million short turns; 6.2 million 16-byte turns) imported under twice their size plus
# 100 MB.
reliability:
	@scripts/deps.sh test
	set -o pipefail; AGENTDESK_KILLS=$(or $(KILLS),20) AGENTDESK_KILL_MB=$(or $(KILL_MB),100) AGENTDESK_SWEEP=$(or $(SWEEP),500) AGENTDESK_SIGNALS=$(or $(SIGNALS),10) \
	  AGENTDESK_BIG_STEPS=$(or $(BIG_STEPS),300000) AGENTDESK_PREDICT_EPISODES=$(or $(PREDICT_EPISODES),520) \
	  AGENTDESK_BIG_LINE_MB=$(or $(BIG_LINE_MB),100) \
	  $(GO) test -count=1 -timeout 60m -v -run '^(TestKilledWritesRecover|TestSignalsAtRandomMoments|TestCorruptedInputsSweep|TestLargeAnnotationPeakRSS|TestOdysseyPredictResumesAfterAKill|TestBigJSONLinePeakRSS)$$' ./app \
	  | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|kills survived|signals came before|corrupted inputs tried|peaked at|test records'

# The release binary, built once; packaging reuses it.
release-bin: deps
	$(GO) build -trimpath -ldflags '-s -w $(LDFLAGS)' -o $(BIN) .

# Linux .tar.xz (fyne package) and .deb (dpkg-deb) in dist/.
package: release-bin
	@scripts/deps.sh package
	packaging/package-linux.sh $(BIN) $(APPVER) $(DIST)

# Windows, cross-built with mingw: the portable agentdesk-VERSION-windows-amd64.exe and the
# installer agentdesk-VERSION-windows-amd64-setup.exe in dist/ (packaging/windows/build.sh).
package-windows:
	@scripts/deps.sh windows
	GO=$(GO) LDFLAGS='$(LDFLAGS)' packaging/windows/build.sh $(APPVER) $(DIST)

# The Windows build under wine and Xvfb: the command line against the Linux build's output, a
# store in a folder with spaces and non-ASCII characters, saving over a file held open, the GUI's
# main window (screenshots in ui-tour/windows/), the installer and uninstaller
# (packaging/windows/test.sh). .ci/run runs it after make test. The Linux side is the plain
# build, whose packages make test has compiled already (a -trimpath build would compile
# everything again).
test-windows: package-windows build
	@scripts/deps.sh wine
	packaging/windows/test.sh $(DIST) $(BIN) ui-tour/windows $(APPVER)

# Every release artefact in dist/: the Linux .deb and .tar.xz, the Windows installer and
# portable exe, the Python wheel, SHA256SUMS and RELEASE-NOTES-VERSION.md to fill in.
release: package package-windows wheel
	packaging/release-notes.sh $(APPVER) $(DIST)

# Installs the .deb into a temporary root, validates the .desktop file and starts the
# installed binary under Xvfb, waiting for its main window.
package-check: package
	packaging/package-check.sh $(DIST)/agentdesk_$(APPVER)_amd64.deb

licenses:
	cd resources && $(GO) run licenses_gen.go

icon:
	cd resources && $(GO) run icon_gen.go

clean:
	rm -rf bin $(DIST)
