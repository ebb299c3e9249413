"""The docstring's examples run as doctests on both sides (``runner``, in the child process): the
specification written in the code, beyond the single literal calls the runner reads itself (``>>> t =
Tally()``, ``>>> t.add("a")``, ``1``: examples that build state, print, or show an exception). Each side
runs the same examples (the changed function's docstring as the change leaves it) in its own module's
globals, under the runner's guard and alarm; an example that passes on one side only is a difference, as a
docstring example the new version no longer gives (or now gives). Standard library only, nothing of
acode: the runner loads this file by its path."""

from __future__ import annotations

import doctest
import re
import sys

# the runner's siblings, loaded before this one
outcomes = sys.modules["acode_behaviour_runner_outcomes"]
inputs = sys.modules["acode_behaviour_runner_inputs"]
SECONDS = 4.0  # all the examples of one side together
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


class _Recorder(doctest.DocTestRunner):
    """Each example's result in ``results``, as it runs (the one in flight when the alarm comes is None)."""

    def __init__(self, results: list[dict]) -> None:
        super().__init__(verbose=False, optionflags=FLAGS)
        self.results = results

    def report_start(self, out, test, example) -> None:
        self.results.append({"ok": None, "got": "does not finish"})

    def report_success(self, out, test, example, got) -> None:
        self.results[-1] = {"ok": True, "got": got.strip()}

    def report_failure(self, out, test, example, got) -> None:
        self.results[-1] = {"ok": False, "got": got.strip()}

    def report_unexpected_exception(self, out, test, example, exc_info) -> None:
        self.results[-1] = {"ok": False, "got": f"raises {exc_info[0].__name__}"}


def docstring_checks(spec: dict, old, new) -> list[dict]:
    """Each docstring example with its expected output: does the old / the new version give it?"""
    out = []
    for example in spec.get("examples", []):
        if not example.get("want"):
            continue
        values = inputs.literal_values([example["args"], example["kwargs"], example["want"]])
        if len(values) != 3:
            continue
        args, kwargs, want = tuple(values[0]), dict(values[1]), values[2]
        results = [_patient(side, args, kwargs) for side in (old, new)]
        out.append({"call": outcomes.call_text(spec["name"], args, kwargs), "want": outcomes.show(want),
                    "old_ok": results[0]["kind"] == "return" and outcomes.same(results[0]["value"], want),
                    "new_ok": results[1]["kind"] == "return" and outcomes.same(results[1]["value"], want),
                    "old": outcomes.describe(results[0]), "new": outcomes.describe(results[1])})
    return out


def _patient(side, args: tuple, kwargs: dict) -> dict:
    """One call's outcome; one that runs out of its time gets a second, longer run (slow is not hung)."""
    result = outcomes.outcome(side, args, kwargs)
    if result["kind"] == "timeout":
        result = outcomes.outcome(side, args, kwargs, outcomes.CALL_SECONDS * outcomes.HANG_PATIENCE)
    return result


def examples_of(docstring: str) -> list[doctest.Example]:
    try:
        return doctest.DocTestParser().get_examples(docstring or "")
    except ValueError:
        return []


def _globals(fn) -> dict:
    fn = getattr(fn, "fget", None) or getattr(fn, "func", None) or fn  # a property's, a cached property's
    found = getattr(fn, "__globals__", None) or getattr(getattr(fn, "__func__", None), "__globals__", None)
    return dict(found or {})


def _side(fn, docstring: str, name: str) -> list[dict]:
    """Each example's result on one side; examples that run out of time get one longer run (slow is not
    hung)."""
    for seconds in (SECONDS, SECONDS * outcomes.HANG_PATIENCE):
        results: list[dict] = []
        test = doctest.DocTestParser().get_doctest(docstring, _globals(fn), name, None, 0)

        def run(test=test, results=results) -> None:
            _Recorder(results).run(test, out=lambda _text: None, clear_globs=False)
        if outcomes.outcome(lambda run=run: run, (), {}, seconds)["kind"] != "timeout":
            break
    return results


def doctest_checks(spec: dict, old_fn, new_fn) -> list[dict]:
    """Per example that shows an output (or an exception), in the function's docstring (when the runner's
    own literal calls do not cover it) and in the docstrings of the module that call it (``neighbours``):
    does the old / the new version give it?"""
    docstrings = [(spec["qualname"], spec.get("docstring") or "")]
    if len(examples_of(docstrings[0][1])) <= len(spec.get("examples", [])):
        docstrings = []
    docstrings += [(n["name"], n["docstring"]) for n in spec.get("neighbours", [])]
    out = []
    for where, docstring in docstrings:
        examples = examples_of(docstring)
        if not examples:
            continue
        old, new = _side(old_fn, docstring, where), _side(new_fn, docstring, where)
        shown = "" if where == spec["qualname"] else f"(in {where}'s docstring) "
        for number, example in enumerate(examples):
            if not example.want.strip() and not example.exc_msg:
                continue  # a step that sets something up: its result shows in the examples after it
            before = old[number] if number < len(old) else {"ok": None, "got": "not run"}
            after = new[number] if number < len(new) else {"ok": None, "got": "not run"}
            out.append({"call": shown + example.source.strip(), "want": example.want.strip(), "index": number,
                        "old_ok": bool(before["ok"]), "new_ok": bool(after["ok"]), "where": where,
                        "docstring": docstring, "old": _gives(before), "new": _gives(after),
                        "found_by": "doctest"})
    return out


def _gives(result: dict) -> str:
    got = result["got"]
    return got if got.startswith(("raises", "does not finish", "not run")) else f"gives {got or 'nothing'}"


def difference(spec: dict, checks: list[dict]) -> dict | None:
    """The first example that passes on one side only, as a difference with the test to paste (the examples
    up to it, as a doctest the old version passes)."""
    for check in checks:
        if check.get("found_by") != "doctest" or check["old_ok"] == check["new_ok"]:
            continue
        examples = examples_of(check["docstring"])[:check["index"] + 1]
        shown = "; ".join(e.source.strip() for e in examples)
        raises = check["new"].startswith("raises") != check["old"].startswith("raises")
        kind = "hang" if check["new"].startswith("does not finish") else "raises" if raises else "returns"
        return {"input": shown, "old": check["old"], "new": check["new"], "found_by": "doctest",
                "what": "result", "kind": kind, "test": _test(spec, examples, check)}
    return None


def public(checks: list[dict]) -> list[dict]:
    """The checks as the review records them (without the docstrings they were read from)."""
    return [{k: v for k, v in c.items() if k != "docstring"} for c in checks]


def _test(spec: dict, examples: list[doctest.Example], check: dict) -> str:
    """The examples up to the one that differs, as a doctest that asserts the old version's output: the
    docstring's own where the old version gave it, else what the old version printed."""
    last = examples[-1].want
    if not check["old_ok"]:
        if not check["old"].startswith("gives "):
            return f"# no test: the old version {check['old']} on the docstring's example"
        last = check["old"].removeprefix("gives ") + "\n"
    text = "".join(f">>> {e.source.strip()}\n{e.want}" for e in examples[:-1])
    text += f">>> {examples[-1].source.strip()}\n{last}"
    qualname = check.get("where") or spec["qualname"]
    name = "test_" + re.sub(r"\W+", "_", qualname).lower() + "_docstring_as_before"
    return (f"import doctest\n\nimport {spec['module']}\n\nEXAMPLES = {text!r}\n\n\n"
            f"def {name}():\n"
            f"    # the docstring's examples of {qualname}, up to the one the change no longer gives\n"
            f"    globs = vars({spec['module']}).copy()\n"
            f"    test = doctest.DocTestParser().get_doctest(EXAMPLES, globs, {qualname!r}, None, 0)\n"
            f"    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE\n"
            f"    assert doctest.DocTestRunner(optionflags=flags).run(test).failed == 0\n")
