# Palimpsest: `make run` opens the app, `make test` runs every check CI runs.
# Both install what is missing first (scripts/install-deps.sh), so a fresh Debian/Ubuntu needs
# nothing else. Honours CARGO_TARGET_DIR.

SHELL := /bin/bash
export PATH := $(HOME)/.cargo/bin:$(PATH)

CARGO ?= cargo
TARGET_DIR := $(or $(CARGO_TARGET_DIR),$(CURDIR)/target)
APP := $(TARGET_DIR)/debug/palimpsest-app
# `make run` opens an optimised build: a debug build parses a 200 MB transcript several times
# slower. The tests and CI use the debug build (`make app`).
APP_RELEASE := $(TARGET_DIR)/release/palimpsest-app
# `make run ARGS=path/to/sessions.db` opens that instead of the default locations.
ARGS ?=


.PHONY: all run test deps deps-e2e ui ui-deps app app-release dist dist-check otlp-check fmt clippy doc rust-test ui-test bindings \
	bindings-check e2e e2e-bins screenshot clean-ui

all: app

deps:
	@bash scripts/install-deps.sh

deps-e2e:
	@bash scripts/install-deps.sh --e2e

# npm ci only when the lock file changed since the last install.
ui/node_modules/.package-lock.json: ui/package-lock.json
	cd ui && npm ci --no-audit --no-fund
	@touch $@

ui-deps: ui/node_modules/.package-lock.json

UI_SRC := $(shell find ui/src ui/index.html ui/vite.config.ts ui/tsconfig.json ui/package.json \
	-type f -not -name '*.test.*' 2>/dev/null)

# Rebuilt only when a UI source changed; tauri embeds ui/dist into the app binary.
ui/dist/index.html: ui/node_modules/.package-lock.json $(UI_SRC)
	cd ui && npm run build
	@touch $@

ui: ui/dist/index.html

app: ui
	$(CARGO) build -p palimpsest-app

app-release: ui
	$(CARGO) build --release -p palimpsest-app

run: deps app-release
	$(APP_RELEASE) $(ARGS)

# ---- packages ----

# The .deb and .rpm of the app, each with its desktop entry and icon and the `palimpsest` CLI in
# /usr/bin (docs/GUIDE.md). Offline: the Tauri bundler comes with the UI's npm packages; no
# AppImage, whose tools the bundler downloads at build time.
DIST := $(TARGET_DIR)/dist
DIST_FILES := {"/usr/bin/palimpsest": "$(DIST)/palimpsest"}
DIST_CONFIG := {"bundle": {"linux": {"deb": {"files": $(DIST_FILES)}, "rpm": {"files": $(DIST_FILES)}}}}
dist: deps ui
	$(CARGO) build --locked --profile dist -p palimpsest-cli
	cd src-tauri && ../ui/node_modules/.bin/tauri build --ci --bundles deb,rpm \
	  --config '$(DIST_CONFIG)' -- --locked --profile dist
	@ls -1 $(DIST)/bundle/deb/*.deb $(DIST)/bundle/rpm/*.rpm

# The .deb installed on this machine as a user installs it, used, and removed without a trace.
dist-check: dist deps-e2e e2e-bins
	bash scripts/check-dist.sh "$(DIST)"

# `export --otlp` into a real Arize Phoenix (PyPI), which the test starts on loopback, reads
# back and stops. Phoenix is pinned and installed once into its own virtualenv.
PHOENIX := $(TARGET_DIR)/phoenix/bin/phoenix
$(PHOENIX):
	python3 -m venv "$(TARGET_DIR)/phoenix"
	"$(TARGET_DIR)/phoenix/bin/pip" install --quiet --disable-pip-version-check 'arize-phoenix==20.26.1'

otlp-check: e2e-bins $(PHOENIX)
	python3 tests/otlp/phoenix.py --cli "$(TARGET_DIR)/debug/palimpsest" --phoenix "$(PHOENIX)" \
	  --fixtures "$(CURDIR)/fixtures"

# ---- checks ----

fmt:
	$(CARGO) fmt --all --check

clippy: ui
	$(CARGO) clippy --workspace --all-targets --all-features --locked -- -D warnings

rust-test: ui
	$(CARGO) test --workspace

# The API docs build without a warning (broken links, bad markup).
doc: ui
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps

ui-test: ui-deps
	cd ui && npx tsc --noEmit && npx vitest run

# The library crates, bottom layer first (docs/ARCHITECTURE.md): their types are the app's.
LIBRARIES := palimpsest-model palimpsest-tokens palimpsest-analysis palimpsest-index palimpsest-core

# Regenerate ui/src/bindings from the core types (ts-rs exports them from test functions).
# Generated into a scratch folder first, so a build failure never leaves the folder half empty.
BINDINGS_TMP := $(TARGET_DIR)/ts-bindings
bindings:
	rm -rf "$(BINDINGS_TMP)"
	TS_RS_EXPORT_DIR="$(BINDINGS_TMP)" $(CARGO) test $(LIBRARIES:%=-p %) --features ts --lib export_bindings --quiet
	find ui/src/bindings -name '*.ts' -delete
	cp -r "$(BINDINGS_TMP)"/. ui/src/bindings/

# Fail when the committed bindings differ from what the Rust types generate.
bindings-check: bindings
	@git diff --exit-code --stat ui/src/bindings \
	  && test -z "$$(git status --porcelain --untracked-files=all ui/src/bindings)" \
	  || { echo "ui/src/bindings is out of date: run 'make bindings' and commit it"; \
	       git status --porcelain --untracked-files=all ui/src/bindings; exit 1; }

# End-to-end: the real app in a real webview (WebKitWebDriver via tauri-driver) under Xvfb.
# The CLI (compared against) and the live writer (palimpsest-writer) the e2e tests run.
e2e-bins:
	$(CARGO) build -p palimpsest-cli -p palimpsest-fixtures --bins

e2e: deps-e2e app e2e-bins
	xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
	  python3 tests/e2e/run.py --app "$(APP)" --fixtures "$(CURDIR)/fixtures"

# Every check runs even when an earlier one fails; the summary lists each with its time.
test: deps-e2e ui
	@bash scripts/check.sh fmt clippy doc rust-test ui-test bindings-check e2e otlp-check dist-check

# The docs' screenshots (docs/screenshot-*.png): the whole end-to-end suite, each test that
# draws one writing it into docs/.
screenshot: deps-e2e app e2e-bins
	xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
	  python3 tests/e2e/run.py --app "$(APP)" --fixtures "$(CURDIR)/fixtures" \
	  --screenshot-dir docs

clean-ui:
	rm -rf ui/dist ui/node_modules
