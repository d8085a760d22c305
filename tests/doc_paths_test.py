#!/usr/bin/env python3
"""Every repository path that a document or a source comment names exists, so that the docs stay
a map of the tree: a file moved or renamed fails here, naming each place that still cites it
(eleven comments once cited a DESIGN.md the tree never held). And docs/README.md, the index of
the docs, has a line for every document in docs/.

What is read:
  documents        docs/*.md, README.md, CONTRIBUTING.md: the whole text
  source comments  the comments (//, /* */) of the .h, .cpp and .cu files, and the # comments of
                   the CMake files, of the floors of docs/design.md (tests/layers_test.py); the
                   # comments of scripts/ (.sh, .sbatch, .py)

What counts as a path, in that text:
  - a markdown link's target, `[text](target)`, relative to the document; its #anchor must be
    a heading of the document linked;
  - a word with a slash whose first segment is a folder at the top of the repository
    (`harness/record.h`, `results/rules/`), relative to the repository;
  - a word with a slash that ends in a known file extension and whose first segment is a folder
    beside the naming file (`cuda/lt_matmul.h` in a comment in gemm/), relative to that file;
  - a document's name in capitals (`DESIGN.md`), beside the naming file or at the top;
  - and a document named with a section, `docs/design.md "Layers"`: the section, a heading or a
    paragraph's bold lead, must begin with the quoted words.
A path may end in `:LINE`; `*`, `<placeholder>`, a capitals placeholder (`NAME.yaml`) and
`{a,b}` are patterns, which must match at least one file. Left out: URLs; absolute paths
(/usr/..., /etc/...); `../` outside a link (../shared/...); words with an ellipsis; a path whose
first segment is a placeholder (`<dir>/run.json`); a path after a possessive, which is another
project's (Calculon's `calculon/llm/llm.py`, nccl-tests' doc/PERFORMANCE.md, its src/common.cu);
and paths of a run directory, a data directory or an installed tree (`check/verdict.md`,
`peaks/gpu_peaks.yaml`, `build/CPackConfig.cmake`), whose first segment is no folder here.

  doc_paths_test.py SOURCE_DIR [unittest args]
  doc_paths_test.py SOURCE_DIR --list     (each problem on a line, and nothing else)
"""
import bisect
import functools
import glob
import pathlib
import re
import sys
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "support"))
from source_files import source_files  # noqa: E402

ROOT = (pathlib.Path(sys.argv.pop(1)) if len(sys.argv) > 1
        else pathlib.Path(__file__).parents[1]).resolve()
# The floors of tests/layers_test.py: the folders whose comments are read.
SOURCE_FOLDERS = ("harness", "records", "gemm", "memory", "offload", "rdma", "collectives",
                  "block", "analysis", "cli")
HASH_COMMENTED = (".cmake", ".sh", ".sbatch", ".py")
EXTENSIONS = (".h", ".cpp", ".cu", ".py", ".sh", ".sbatch", ".cmake", ".md", ".yaml", ".yml",
              ".json", ".jsonl", ".txt", ".xml", ".csv")

COMMENT_OR_STRING = re.compile(
    r'//[^\n]*|/\*.*?\*/|R"([^(\s"]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])\'', re.S)
HASH_COMMENT = re.compile(r'#[^\n]*|"(?:\\.|[^"\\])*"', re.S)
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
LINK = re.compile(r"\]\(([^)\s]+)\)")
WORD = re.compile(r"[\w.*<>{},+$-]*/[\w./*<>{},+$-]*|\b[A-Z][A-Z0-9_-]*\.md\b")
DOCUMENT = re.compile(r"[A-Z][A-Z0-9_-]*\.md")
# "Calculon's `systems/a100_80g.json`", "nccl-tests' doc/PERFORMANCE.md", "its src/common.cu":
# a path in another project's tree.
POSSESSIVE = re.compile(r"(?:\w's|\ws'|\bits)\s+[`(\"]?$")
# Words of the shape of a path that name none: a Kubernetes resource, an example's own runs.
NOT_PATHS = {"rdma/rdma_shared_device_a", "results/2026-11-26*/"}
# A document named with one of its sections: docs/design.md "Layers".
SECTION = re.compile(r'([\w./-]+\.md)[`)\]]*(?:\([^)\s]*\))?,?\s+"([^"\n]+)"')


def comments(path, text):
    """The comments of a source file, everything else blank but its newlines, so that line numbers
    hold."""
    if path.name == "CMakeLists.txt" or path.suffix in HASH_COMMENTED:
        pattern, opener = HASH_COMMENT, "#"
    else:
        pattern, opener = COMMENT_OR_STRING, "/"
    out, last = [], 0
    for m in pattern.finditer(text):
        chunk = m.group(0)
        out.append(blank(text[last:m.start()]))
        out.append(chunk if chunk.startswith(opener) else blank(chunk))
        last = m.end()
    out.append(blank(text[last:]))
    return "".join(out)


def blank(text):
    return " " + "\n" * text.count("\n") + " "


def top_folders(files):
    return {p.split("/", 1)[0] for p in files if "/" in p}


def expand(pattern):
    """The patterns a word stands for: each {a,b} expanded, each <placeholder> a wildcard."""
    m = re.search(r"\{([^{}]*)\}", pattern)
    if m:
        return [q for alt in m.group(1).split(",")
                for q in expand(pattern[:m.start()] + alt + pattern[m.end():])]
    return [re.sub(r"<[^<>/]*>", "*", pattern)]


def exists(base, rel):
    for pattern in expand(rel):
        if any(c in pattern for c in "*?["):
            if glob.glob(str(base / pattern)):
                return True
        elif (base / pattern).exists():
            return True
    return False


def clean(word):
    word = re.sub(r":\d+(-\d+)?$", "", word.strip())
    word = word.rstrip(".,;:")
    if word.count("{") != word.count("}"):
        word = word.strip("{},")
    return word.lstrip("<").rstrip(">") if word.count("<") != word.count(">") else word


def placeholder(segment):
    """A segment that stands for a name: <run_dir>, NAME, $DIR."""
    return bool(re.fullmatch(r"<[^<>]*>|[A-Z][A-Z_]*|\$\{?\w+\}?", segment))


def unplaceholder(path):
    """The path with each capitals placeholder (results/suites/NAME.yaml) made a wildcard; a
    capitals document (README.md) is a name."""
    return "/".join(re.sub(r"^[A-Z][A-Z_]*(?=\.(?!md$)|$)", "*", seg) for seg in path.split("/"))


@functools.lru_cache(maxsize=None)
def anchors(path):
    """The anchors GitHub gives the headings of a markdown file: lower case, punctuation but - and
    _ dropped, spaces as -, a repeated one numbered."""
    return frozenset(_anchors(path))


def _anchors(path):
    seen, fenced = {}, False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#{1,6}\s+(.*?)\s*#*$", line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            seen[slug] = seen.get(slug, -1) + 1
            yield slug if seen[slug] == 0 else f"{slug}-{seen[slug]}"


@functools.lru_cache(maxsize=None)
def sections(path):
    return tuple(_sections(path))


def _sections(path):
    """The headings of a markdown file, and the bold leads of its paragraphs (**Kernels.**), in
    lower case and without backticks: what a "Section" after the file's name may name."""
    fenced = False
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else (re.match(r"#{1,6}\s+(.*?)\s*#*$", line) or
                                 re.match(r"(?:[-*]\s+)?\*\*([^*]+?)\.?\*\*", line))
        if m:
            yield m.group(1).replace("`", "").lower()


def broken_sections(root, rel_file, text):
    """Each `doc.md "Section"` (and `[doc.md](doc.md), "Section"`) whose section the document
    lacks: a title the quoted words do not begin."""
    bad = []
    for m in SECTION.finditer(text):
        doc = next((d for d in ((root / rel_file).parent / m.group(1), root / m.group(1))
                    if d.is_file()), None)
        if doc is None:
            continue  # a missing document is said by the path check
        wanted = m.group(2).replace("`", "").lower()
        if not any(title.startswith(wanted) for title in sections(doc)):
            bad.append(f"{rel_file}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(1)} "
                       f"has no section \"{m.group(2)}\"")
    return bad


def broken_anchors(root, rel_file, text):
    """Each link into a markdown file's section whose heading is not there."""
    bad = []
    for m in LINK.finditer(text):
        target, _, anchor = m.group(1).partition("#")
        if not anchor or URL.match(target):
            continue
        doc = (root / rel_file).parent / target if target else root / rel_file
        if doc.suffix == ".md" and doc.is_file() and anchor not in anchors(doc):
            bad.append(f"{rel_file}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(1)}")
    return bad


def named_paths(root, rel_file, text, tops, markdown):
    """(line, path, base) for each path the text names, base the folder it is relative to."""
    here = (root / rel_file).parent
    found = []
    text = URL.sub(lambda m: " " * len(m.group(0)), text)
    newlines = [i for i, c in enumerate(text) if c == "\n"]
    if markdown:
        for m in LINK.finditer(text):
            target = m.group(1).split("#", 1)[0]
            if target and not target.startswith(("mailto:", "/")):
                found.append((bisect.bisect(newlines, m.start()) + 1, target, here))
        text = LINK.sub(lambda m: "](" + " " * len(m.group(1)) + ")", text)
    for m in WORD.finditer(text):
        word = clean(m.group(0))
        line = bisect.bisect(newlines, m.start()) + 1
        if POSSESSIVE.search(text[max(0, m.start() - 40):m.start()]) or word in NOT_PATHS:
            continue  # another project's tree (Calculon's calculon/llm/llm.py), or no path
        if "/" not in word:
            if DOCUMENT.fullmatch(word):
                found.append((line, word, None))  # DESIGN.md: beside the file, or at the top
            continue
        if word.startswith(("/", "~", "../")) or "..." in word or "//" in word:
            continue  # absolute, out of the repository, or elided
        word = word[2:] if word.startswith("./") else word
        first = word.split("/", 1)[0]
        if placeholder(first):
            continue
        if first in tops:
            found.append((line, unplaceholder(word), root))
        elif word.endswith(EXTENSIONS) and (here / first).is_dir():
            found.append((line, unplaceholder(word), here))
    return found


def documents_and_sources(files):
    docs = [p for p in files if (p.startswith("docs/") and p.endswith(".md"))
            or p in ("README.md", "CONTRIBUTING.md")]
    sources = [p for p in files if p.split("/", 1)[0] in SOURCE_FOLDERS and
               (p.endswith((".h", ".cpp", ".cu", ".cmake")) or p.endswith("CMakeLists.txt"))]
    scripts = [p for p in files if p.startswith("scripts/") and p.endswith(HASH_COMMENTED)]
    return docs + sources + scripts


def check_text(root, rel_file, text, tops):
    """(problems, paths checked) of one file's text: its comments for a source file."""
    markdown = rel_file.endswith(".md")
    bad = []
    if markdown:
        bad += broken_anchors(root, rel_file, text)
    else:
        text = comments(pathlib.Path(rel_file), text)
    bad += broken_sections(root, rel_file, text)
    paths = named_paths(root, rel_file, text, tops, markdown)
    for line, path, base in paths:
        bases = [base] if base is not None else [(root / rel_file).parent, root]
        if not any(exists(b, path) for b in bases):
            bad.append(f"{rel_file}:{line}: {path}")
    return bad, len(paths)


def broken_paths(root):
    files = source_files(root)
    tops = top_folders(files)
    bad, checked = [], 0
    for rel_file in documents_and_sources(files):
        found, n = check_text(root, rel_file, (root / rel_file).read_text(errors="replace"), tops)
        bad += found
        checked += n
    return bad, checked


if __name__ == "__main__" and "--list" in sys.argv:
    print("\n".join(broken_paths(ROOT)[0]))
    sys.exit(0)


class DocPaths(unittest.TestCase):
    def test_every_named_path_exists(self):
        bad, checked = broken_paths(ROOT)
        self.assertGreater(checked, 500)  # the walk found the documents and the comments
        self.assertEqual(bad, [], "paths, sections and anchors named in docs or source comments "
                         "that do not exist (tests/doc_paths_test.py):\n" + "\n".join(bad))

    def test_the_index_lists_every_doc(self):
        # docs/README.md is the map of the docs: a document added to docs/ without a line there
        # is one nobody finds.
        index = (ROOT / "docs" / "README.md").read_text()
        linked = {m.group(1).split("#", 1)[0] for m in LINK.finditer(index)}
        docs = {p.name for p in (ROOT / "docs").iterdir()
                if p.is_file() and p.name != "README.md"}
        self.assertGreater(len(docs), 10)
        self.assertEqual(sorted(docs - linked), [], "docs/README.md has no line for these")

    def test_a_missing_path_is_caught(self):
        # The scan itself, on text of its own: what it must refuse, and what it must leave alone.
        tops = top_folders(source_files(ROOT))
        code = "\n".join([
            '// (DESIGN.md "Records") see harness/no_such_file.h and cuda/no_such_kernel.cu',
            '// docs/design.md "No such section"; docs/design.md "Layers" holds',
            '// harness/record.h:12, results/suites/NAME.yaml, cuda/lt_matmul.h, <dir>/run.json',
            '// https://github.com/NVIDIA/nccl-tests/blob/master/src/common.cu, /usr/lib/x.so',
            '// ../shared/reference/slurm.md, Calculon\'s calculon/llm/llm.py, its src/util.cu',
            'const char *p = "harness/not_a_comment.h";'])
        bad, checked = check_text(ROOT, "gemm/example.cpp", code, tops)
        self.assertEqual([b.split(": ", 1)[1] for b in bad],
                         ['docs/design.md has no section "No such section"', "DESIGN.md",
                          "harness/no_such_file.h", "cuda/no_such_kernel.cu"])
        self.assertEqual(checked, 8)
        doc = ("[design](design.md#layers), [gone](gone.md), [x](design.md#no-such-anchor), "
               "`tests/cli/`")
        bad, _ = check_text(ROOT, "docs/example.md", doc, tops)
        self.assertEqual([b.split(": ", 1)[1] for b in bad],
                         ["design.md#no-such-anchor", "gone.md", "tests/cli/"])


if __name__ == "__main__":
    unittest.main()
