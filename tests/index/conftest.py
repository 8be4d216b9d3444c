"""A small repository of several languages, built fresh in tmp_path for each test that asks for it."""

from __future__ import annotations

from pathlib import Path

import pytest

TS_CLI = """\
import { readFileSync } from "fs";

/** Turns argv into options. */
export function parseArgs(argv: string[]): Options {
  const options: Options = {};
  for (const arg of argv) {
    options[arg] = true;
  }
  return options;
}

export class HttpServer {
  private port: number;

  constructor(port: number) {
    this.port = port;
  }

  async listen(host: string): Promise<void> {
    console.log(`listening on ${host}:${this.port}`);
  }
}
"""

PY_CONFIG = """\
\"\"\"User configuration.\"\"\"

import json

DEFAULT_PATH = "~/.app.json"


def load_user_config(path: str) -> dict:
    \"\"\"Read the user's configuration file.\"\"\"
    with open(path) as handle:
        return json.load(handle)


class ConfigStore:
    def __init__(self, root):
        self.root = root

    @property
    def size(self):
        return 0
"""

GO_SERVER = """\
package server

type Server struct {
\tport int
}

func (s *Server) Start(addr string) error {
\treturn nil
}

func NewServer() *Server {
\treturn &Server{}
}
"""

RUST_LIB = """\
pub struct Config {
    name: String,
}

impl Config {
    pub fn new(name: &str) -> Self {
        Config { name: name.to_string() }
    }
}

pub fn checksum_bytes(data: &[u8]) -> u32 {
    data.iter().map(|b| *b as u32).sum()
}
"""

JAVA_SERVICE = """\
package app;

public class UserService {
    private final Repo repo;

    public UserService(Repo repo) {
        this.repo = repo;
    }

    public List<User> findAllUsers(int limit) {
        return repo.all(limit);
    }
}
"""

C_MATH = """\
#include <stdio.h>

static int square(int x);

struct vector2 {
    int x, y;
};

static int square(int x) {
    return x * x;
}
"""

GUIDE_MD = """\
# Guide

Intro text.

## Installing

Run the installer and configure the frobnicator.

## Usage

```sh
# not a heading
app --help
```
"""


def write(root: Path, rel: str, content: str | bytes) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with code in six languages, docs, ignored files, vendored directories and a binary."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)  # a repository root for find_repo_root, without running git
    write(root, ".gitignore", "build/\n*.log\nsecret*.txt\n")
    write(root, "src/cli.ts", TS_CLI)
    write(root, "src/config.py", PY_CONFIG)
    write(root, "pkg/server.go", GO_SERVER)
    write(root, "crates/core/src/lib.rs", RUST_LIB)
    write(root, "java/UserService.java", JAVA_SERVICE)
    write(root, "native/math.c", C_MATH)
    write(root, "docs/guide.md", GUIDE_MD)
    write(root, "src/gen/.gitignore", "generated_*.py\n!generated_keep.py\n")
    write(root, "src/gen/generated_skip.py", "def skipped_generated_function():\n    pass\n")
    write(root, "src/gen/generated_keep.py", "def kept_generated_function():\n    pass\n")
    write(root, "build/out.js", "function builtArtifact() {}\n")
    write(root, "logs/run.log", "log line mentioning parseArgs\n")
    write(root, "secret_notes.txt", "hidden\n")
    write(root, "node_modules/lib/index.js", "function vendoredThing() {}\n")
    write(root, ".venv/lib/site.py", "def venv_function(): pass\n")
    write(root, "myenv/pyvenv.cfg", "home = /usr/bin\n")
    write(root, "myenv/lib/other.py", "def other_env_function(): pass\n")
    write(root, "assets/blob.raw", b"RAW\x00\x01\x02 parseArgs inside a binary")
    return root
