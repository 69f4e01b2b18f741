# verdict — the four commands of DESIGN.md §7. Each sets up and configures as needed.
PRESET ?= release
BUILD_DIR := build/$(PRESET)
JOBS ?= $(shell nproc)

.PHONY: all setup configure build test run bench asan-test fuzz format tidy clean

all: build

setup:
	@scripts/setup

$(BUILD_DIR)/build.ninja: | setup
	@cmake --preset $(PRESET) >/dev/null

configure: $(BUILD_DIR)/build.ninja

build: setup configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)
	@ln -sfn $(PRESET)/bin build/bin

test: build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS) --timeout 600

# The demo's history (docs/import.md): the first month of the demo population (`verdict sim
# --demo-population`: the demo model's kind of population, 10,000 accounts, at its own seed),
# imported once (a second import finds nothing left to do), so that the demo starts warm; the
# demo traffic then continues the same accounts after the journal's newest transaction.
DEMO_HISTORY := var/demo-history.csv

run: build
	@mkdir -p var
	@test -f $(DEMO_HISTORY) || { build/bin/verdict sim --demo-population \
	  --out $(DEMO_HISTORY).tmp >/dev/null \
	  && mv $(DEMO_HISTORY).tmp $(DEMO_HISTORY); }
	@build/bin/verdict import --input $(DEMO_HISTORY) --data-dir ./var --tenant dev \
	  --config config/verdict.toml \
	  || echo "make run: the demo history was not imported (above); serving without it"
	build/bin/verdict serve --config config/verdict.toml --listen 127.0.0.1:8080 --data-dir ./var --insecure-dev --demo-traffic 2

bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do echo "== $$b"; $$b --benchmark_min_time=0.2; done

asan-test:
	@$(MAKE) --no-print-directory PRESET=asan build test

fuzz: setup
	@cmake --preset fuzz >/dev/null
	@cmake --build build/fuzz -j $(JOBS)

format:
	@git ls-files '*.cc' '*.h' | xargs clang-format -i

tidy: build
	@git ls-files 'src/*.cc' | grep -v _test.cc | xargs clang-tidy -p $(BUILD_DIR) --quiet

clean:
	rm -rf build
