"""Benchmark the repository index: build 10,000 generated files, re-index after touching 10, time 200 queries.

Targets (DESIGN.md section 12): 10,000 files indexed in < 60 s, queries < 50 ms.
Run: ``.venv/bin/python bench/bench_index.py [--files N] [--queries N] [--keep DIR]``
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from navtui.index import Index, build_index, context_note, index_path, update_files  # noqa: E402

_VOCABULARY = (
    "account user session token cache buffer parser config request response handler server client stream "
    "record event queue worker schedule retry timeout payload message channel index chunk symbol file path "
    "commit branch merge diff patch render layout widget theme color style query result filter sort page "
    "limit offset batch import export encode decode compress hash verify sign upload download sync lock"
)
_SYLLABLE_TEXT = "ka ro mi tel van sor pex lin dor fu gra nem bis tol quo zar wen hul dri mos"
_SYLLABLES = _SYLLABLE_TEXT.split()


def _vocabulary(size: int = 3000) -> list[str]:
    """Real words first, then made-up ones; drawn with Zipf weights like words in real code."""
    words = _VOCABULARY.split()
    rng = random.Random(1)
    seen = set(words)
    while len(words) < size:
        word = "".join(rng.choices(_SYLLABLES, k=rng.randint(2, 3)))
        if word not in seen:
            seen.add(word)
            words.append(word)
    return words


WORDS = _vocabulary()
_CUMULATIVE = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(WORDS))))


def word(rng: random.Random) -> str:
    return rng.choices(WORDS, cum_weights=_CUMULATIVE)[0]


def ident(rng: random.Random, style: str) -> str:
    parts = [word(rng) for _ in range(rng.randint(2, 3))]
    if style == "snake":
        return "_".join(parts)
    if style == "pascal":
        return "".join(p.title() for p in parts)
    return parts[0] + "".join(p.title() for p in parts[1:])


def sentence(rng: random.Random) -> str:
    return " ".join(word(rng) for _ in range(rng.randint(6, 12)))


def python_file(rng: random.Random) -> str:
    out = ['"""' + sentence(rng) + '"""', "", "import os", "import json", ""]
    for _ in range(rng.randint(2, 4)):
        cls = ident(rng, "pascal")
        out += ["", f"class {cls}:", f'    """{sentence(rng)}"""', ""]
        for _ in range(rng.randint(2, 5)):
            out += [f"    def {ident(rng, 'snake')}(self, {word(rng)}, {word(rng)}_id):"]
            out += [
                f"        {ident(rng, 'snake')} = self.{ident(rng, 'snake')}({word(rng)})"
                for _ in range(rng.randint(3, 10))
            ]
            out += [f"        return {word(rng)}", ""]
    for _ in range(rng.randint(1, 4)):
        out += ["", f"def {ident(rng, 'snake')}({word(rng)}):", f"    # {sentence(rng)}"]
        out += [f"    {word(rng)} = {ident(rng, 'snake')}({word(rng)})" for _ in range(rng.randint(3, 12))]
        out += [f"    return {word(rng)}"]
    return "\n".join(out) + "\n"


def ts_file(rng: random.Random) -> str:
    out = [f'import {{ {ident(rng, "camel")} }} from "./{word(rng)}";', ""]
    for _ in range(rng.randint(2, 5)):
        out += [
            f"/** {sentence(rng)} */",
            f"export function {ident(rng, 'camel')}({word(rng)}: string): number {{",
        ]
        out += [f"  const {word(rng)} = {ident(rng, 'camel')}({word(rng)});" for _ in range(rng.randint(3, 10))]
        out += ["  return 0;", "}", ""]
    cls = ident(rng, "pascal")
    out += [f"export class {cls} {{"]
    for _ in range(rng.randint(2, 4)):
        out += [f"  async {ident(rng, 'camel')}({word(rng)}: number): Promise<void> {{"]
        out += [f"    this.{word(rng)} = {ident(rng, 'camel')}();" for _ in range(rng.randint(2, 6))]
        out += ["  }", ""]
    out += ["}"]
    return "\n".join(out) + "\n"


def go_file(rng: random.Random) -> str:
    typ = ident(rng, "pascal")
    out = ["package main", "", f"type {typ} struct {{", f"\t{word(rng)} int", "}", ""]
    for _ in range(rng.randint(2, 6)):
        out += [f"// {sentence(rng)}", f"func (s *{typ}) {ident(rng, 'pascal')}({word(rng)} string) error {{"]
        out += [f"\t{word(rng)} := {ident(rng, 'camel')}()" for _ in range(rng.randint(3, 10))]
        out += ["\treturn nil", "}", ""]
    return "\n".join(out)


def rust_file(rng: random.Random) -> str:
    typ = ident(rng, "pascal")
    out = [f"pub struct {typ} {{", f"    {word(rng)}: u32,", "}", "", f"impl {typ} {{"]
    for _ in range(rng.randint(2, 5)):
        out += [f"    /// {sentence(rng)}", f"    pub fn {ident(rng, 'snake')}(&self) -> u32 {{"]
        out += [f"        let {word(rng)} = {ident(rng, 'snake')}();" for _ in range(rng.randint(2, 8))]
        out += ["        0", "    }", ""]
    out += ["}"]
    return "\n".join(out) + "\n"


def markdown_file(rng: random.Random) -> str:
    out = [f"# {sentence(rng).title()}", ""]
    for _ in range(rng.randint(2, 5)):
        out += [f"## {word(rng).title()} {word(rng)}", ""] + [sentence(rng) for _ in range(rng.randint(3, 8))] + [""]
    return "\n".join(out)


GENERATORS = (
    (python_file, "py", 40),
    (ts_file, "ts", 25),
    (go_file, "go", 15),
    (rust_file, "rs", 10),
    (markdown_file, "md", 10),
)


def generate(root: Path, files: int, seed: int = 7) -> int:
    rng = random.Random(seed)
    kinds = [g for g in GENERATORS for _ in range(g[2])]
    total = 0
    for n in range(files):
        make, ext, _ = rng.choice(kinds)
        directory = root / f"pkg{n % 50:02d}" / f"mod{(n // 50) % 20:02d}"
        directory.mkdir(parents=True, exist_ok=True)
        text = make(rng)
        (directory / f"{word(rng)}_{n}.{ext}").write_text(text, encoding="utf-8")
        total += len(text)
    (root / ".gitignore").write_text("*.log\nbuild/\n", encoding="utf-8")
    return total


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def queries(rng: random.Random, count: int) -> list[str]:
    out = []
    for i in range(count):
        kind = i % 4
        if kind == 0:
            out.append(ident(rng, "camel"))
        elif kind == 1:
            out.append(ident(rng, "snake"))
        elif kind == 2:
            out.append(f"{word(rng)} {word(rng)}")
        else:
            out.append(f"how does the {word(rng)} {word(rng)} handle a {word(rng)} {word(rng)}?")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = parser.parse_args()

    base = args.keep or Path(tempfile.mkdtemp(prefix="navtui-bench-index-"))
    root = base / "repo"
    try:
        if not root.exists():
            t0 = time.perf_counter()
            size = generate(root, args.files)
            print(f"generated {args.files:,} files ({size / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f} s")
        if index_path(root).exists():
            os.unlink(index_path(root))

        stats = build_index(root)
        target = "ok" if stats.seconds < 60 else "MISSED"
        print(
            f"full build:        {stats.seconds:6.2f} s  {stats.files_per_second:8,.0f} files/s  "
            f"{stats.chunks:,} chunks  {stats.symbols:,} symbols  (target < 60 s: {target})"
        )
        print(f"index size:        {index_path(root).stat().st_size / 1e6:6.1f} MB")

        again = build_index(root)
        print(f"no-change rebuild: {again.seconds:6.2f} s  ({again.files_unchanged:,} unchanged)")

        rng = random.Random(11)
        touched = rng.sample(sorted(p for p in root.rglob("*.py")), 10)
        for path in touched:
            path.write_text(
                path.read_text(encoding="utf-8") + f"\n\ndef touched_{rng.randint(0, 10**6)}():\n    pass\n"
            )
        incremental = build_index(root)
        print(f"incremental (10):  {incremental.seconds:6.2f} s  ({incremental.files_indexed} re-read)")
        for path in touched:
            path.write_text(path.read_text(encoding="utf-8") + "\n# again\n")
        t0 = time.perf_counter()
        update_files(root, touched)
        print(f"update_files (10): {time.perf_counter() - t0:6.3f} s")

        index = Index.open(root)
        assert index is not None
        timings: list[float] = []
        empty = 0
        with index:
            for query in queries(random.Random(3), args.queries):
                t0 = time.perf_counter()
                hits = index.search(query, 10)
                timings.append((time.perf_counter() - t0) * 1000)
                empty += not hits
            symbol_timings: list[float] = []
            for query in queries(random.Random(5), args.queries)[::2]:
                t0 = time.perf_counter()
                index.symbols(query, limit=20)
                symbol_timings.append((time.perf_counter() - t0) * 1000)
        p50, p99 = statistics.median(timings), percentile(timings, 0.99)
        target = "ok" if p99 < 50 else "MISSED"
        print(
            f"search ({len(timings)}):      p50 {p50:6.2f} ms  p99 {p99:6.2f} ms  max {max(timings):6.2f} ms  "
            f"({empty} without hits)  (target < 50 ms: {target})"
        )
        s50, s99 = statistics.median(symbol_timings), percentile(symbol_timings, 0.99)
        print(f"symbols ({len(symbol_timings)}):     p50 {s50:6.2f} ms  p99 {s99:6.2f} ms")
        cold: list[float] = []
        for query in queries(random.Random(4), 50):
            t0 = time.perf_counter()
            opened = Index.open(root)  # the tools open the index per call
            assert opened is not None
            with opened:
                opened.search(query, 8)
            cold.append((time.perf_counter() - t0) * 1000)
        print(f"open+search ({len(cold)}): p50 {statistics.median(cold):6.2f} ms  p99 {percentile(cold, 0.99):6.2f} ms")
        note_times = []
        for prompt in queries(random.Random(9), 40)[3::4]:
            t0 = time.perf_counter()
            context_note(root, prompt, 2000)
            note_times.append((time.perf_counter() - t0) * 1000)
        print(f"context_note (10): p50 {statistics.median(note_times):6.2f} ms  max {max(note_times):6.2f} ms")
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
