"""`runner lsp` driven by a real language client (pytest-lsp, on pygls and lsprotocol).

Run by LanguageServerClientTests.swift with RUNNER naming the built binary:
    RUNNER=.build/debug/runner python -m pytest Tests/RunnerCLITests/LanguageServer
"""

import os
import pathlib
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

RUNNER = os.environ["RUNNER"]

ROOT = """\
params: { mode: { default: debug, choices: [debug, release] } }
includes:
  lib: lib.yml
tasks:
  build:
    desc: Compile everything
    params: { target: { default: all, choices: [all, docs] } }
    run: make
  test:
    deps: [build]
    run: make test
"""

LIB = """\
tasks:
  fmt: { desc: Format the sources, run: gofmt -w . }
"""


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[RUNNER, "lsp", "--stdio"]))
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=types.ClientCapabilities())
    )
    yield
    await lsp_client.shutdown_session()


def project(tmp_path: pathlib.Path, root: str = ROOT, lib: str = LIB) -> str:
    (tmp_path / "lib.yml").write_text(lib)
    path = tmp_path / "tasks.yml"
    path.write_text(root)
    return path.as_uri()


async def open_and_wait(client: LanguageClient, uri: str, text: str):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


async def published(client, *uris):
    """Waits until each of `uris` has had its diagnostics published (each in its own notification)."""
    while not all(uri in client.diagnostics for uri in uris):
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)


VERSIONS = iter(range(2, 1_000_000))


async def complete(client, uri, line, character, text=None):
    """The completion items at a position (after replacing the text, when given), by label."""
    if text is not None:
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=next(VERSIONS)),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=line, character=character),
        )
    )
    items = result.items if hasattr(result, "items") else result
    return {item.label: item for item in items}


async def test_a_valid_file_has_no_diagnostics_and_outlines_its_tasks(client, tmp_path):
    uri = project(tmp_path)
    await open_and_wait(client, uri, ROOT)
    assert not client.diagnostics[uri]
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    assert [s.name for s in symbols] == ["build", "test"]
    assert symbols[0].range.start == types.Position(line=4, character=2)
    assert symbols[0].detail == "Compile everything"


async def test_an_unknown_dependency_is_an_error_at_its_word_with_the_suggestion(client, tmp_path):
    text = ROOT.replace("deps: [build]", "deps: [biuld]")
    uri = project(tmp_path, root=text)
    await open_and_wait(client, uri, text)
    [diagnostic] = client.diagnostics[uri]
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert "did you mean 'build'" in diagnostic.message
    assert diagnostic.range == types.Range(
        start=types.Position(line=9, character=11), end=types.Position(line=9, character=16)
    )


async def test_a_change_is_checked_again_and_a_fix_clears_it(client, tmp_path):
    uri = project(tmp_path)
    await open_and_wait(client, uri, ROOT)
    broken = ROOT.replace("run: make test", "run: make test\n    dpes: [build]")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=broken)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [diagnostic] = client.diagnostics[uri]
    assert "unknown key 'dpes'" in diagnostic.message and "did you mean 'deps'" in diagnostic.message
    assert diagnostic.range.start == types.Position(line=11, character=4)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=ROOT)],
        )
    )
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert not client.diagnostics[uri]


async def test_an_error_in_an_include_shows_there_and_at_the_include_line(client, tmp_path):
    uri = project(tmp_path, lib="tasks:\n  fmt: { rn: gofmt }\n")
    await open_and_wait(client, uri, ROOT)
    lib_uri = (tmp_path / "lib.yml").as_uri()
    # Both files' diagnostics are published, one notification each, in either order.
    while not (client.diagnostics.get(lib_uri) and client.diagnostics.get(uri)):
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [inside] = client.diagnostics[lib_uri]
    assert "unknown key 'rn'" in inside.message
    assert inside.range.start == types.Position(line=1, character=9)
    [pointer] = client.diagnostics[uri]
    assert pointer.range.start.line == 2 and "lib.yml" in pointer.message


async def test_a_cycle_is_reported_with_its_path(client, tmp_path):
    text = ROOT.replace("run: make\n", "deps: [test]\n    run: make\n", 1)
    uri = project(tmp_path, root=text)
    await open_and_wait(client, uri, text)
    messages = " ".join(d.message for d in client.diagnostics[uri])
    assert "cycle" in messages and "build" in messages and "test" in messages


async def test_completion_offers_task_names_in_deps_keys_and_params(client, tmp_path):
    text = ROOT.replace("deps: [build]", "deps: [b]")
    uri = project(tmp_path, root=text)
    await open_and_wait(client, uri, ROOT)  # the last good outline serves a text being written

    names = await complete(client, uri, 9, 12, text)
    assert {"build", "test", "lib:fmt"} <= set(names)
    assert names["lib:fmt"].documentation.value == "Format the sources"
    keys = await complete(client, uri, 11, 4, ROOT + "    ti\n")
    assert "timeout" in keys and "deps" in keys and "version" not in keys
    assert keys["timeout"].documentation.value == "Limit per attempt."
    calling = ROOT + "  ship:\n    deps: [{ task: build, with: { target: d } }]\n"
    params = await complete(client, uri, 12, 34, calling)
    assert set(params) == {"mode", "target"}
    choices = await complete(client, uri, 12, 43, calling)
    assert set(choices) == {"all", "docs"}


async def test_hover_and_definition_of_a_task(client, tmp_path):
    uri = project(tmp_path)
    await open_and_wait(client, uri, ROOT)
    position = types.Position(line=9, character=13)  # deps: [build]
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert "**build** — Compile everything" in hover.contents.value
    assert "`target`" in hover.contents.value
    key = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=5, character=5)
        )
    )
    assert key.contents.value == "**desc** — Shown by --list."
    definition = await client.text_document_definition_async(
        types.DefinitionParams(text_document=types.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert definition.uri == uri
    assert definition.range.start == types.Position(line=4, character=2)
    include = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=2, character=9)
        )
    )
    assert include.uri == (tmp_path / "lib.yml").as_uri()


async def test_a_file_that_runs_commands_when_loaded_runs_none_in_the_editor(client, tmp_path):
    marker = tmp_path / "ran"
    text = (
        "params: { v: { default: { sh: 'touch %s; echo 1' } } }\n"
        "tasks:\n  a: { deps: [{ task: b, for: { sh: 'touch %s' }, with: { x: '${{ item }}' } }] }\n"
        "  b: { params: { x: {} }, run: 'true' }\n"
    ) % (marker, marker)
    uri = project(tmp_path, root=text)
    await open_and_wait(client, uri, text)
    assert not client.diagnostics[uri]
    assert not marker.exists()


LIB_CALLS = "tasks:\n  fmt: { desc: Format the sources, run: gofmt -w . }\n  check: { deps: [fmt, ':build'], run: 'true' }\n"
ROOT_CALLS = ROOT + "  all:\n    deps: [lib:fmt, test]\n    run:\n      - task: lib:fmt\n"


def places(locations):
    return sorted((pathlib.Path(l.uri[len("file://"):]).name, l.range.start.line, l.range.start.character) for l in locations)


async def test_references_of_a_task_across_its_includes(client, tmp_path):
    uri = project(tmp_path, root=ROOT_CALLS, lib=LIB_CALLS)
    await open_and_wait(client, uri, ROOT_CALLS)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line=12, character=13),
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert places(found) == [("lib.yml", 1, 2), ("lib.yml", 2, 18), ("tasks.yml", 12, 11), ("tasks.yml", 14, 14)]


async def test_rename_edits_every_place_as_it_is_written_there(client, tmp_path):
    uri = project(tmp_path, root=ROOT_CALLS, lib=LIB_CALLS)
    await open_and_wait(client, uri, ROOT_CALLS)

    async def rename(line, character, name):
        return await client.text_document_rename_async(
            types.RenameParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
                new_name=name,
            )
        )

    lib_uri = (tmp_path / "lib.yml").as_uri()
    edit = await rename(14, 16, "lib:format")
    assert sorted(e.new_text for e in edit.changes[uri]) == ["lib:format", "lib:format"]
    assert sorted((e.range.start.line, e.range.start.character, e.range.end.character, e.new_text)
                  for e in edit.changes[lib_uri]) == [(1, 2, 5, "format"), (2, 18, 21, "format")]
    edit = await rename(4, 3, "compile")  # the key `build:` itself
    assert sorted((e.range.start.line, e.range.start.character, e.range.end.character, e.new_text)
                  for e in edit.changes[uri]) == [(4, 2, 7, "compile"), (9, 11, 16, "compile")]
    assert [(e.range.start.character, e.new_text) for e in edit.changes[lib_uri]] == [(24, ":compile")]
    with pytest.raises(Exception, match="already there"):
        await rename(4, 3, "test")


async def test_other_yaml_is_left_alone(client, tmp_path):
    workflow = tmp_path / "ci.yml"
    workflow.write_text("on: push\njobs: {}\n")
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=workflow.as_uri(), language_id="yaml", version=1, text=workflow.read_text()
            )
        )
    )
    uri = project(tmp_path)
    await open_and_wait(client, uri, ROOT)
    assert workflow.as_uri() not in client.diagnostics


async def test_an_open_include_is_checked_through_its_includer_with_its_unsaved_text(client, tmp_path):
    uri = project(tmp_path, root=ROOT_CALLS, lib=LIB_CALLS)
    await open_and_wait(client, uri, ROOT_CALLS)
    lib_uri = (tmp_path / "lib.yml").as_uri()
    # Alone, `:build` would name nothing; through tasks.yml it is the root's build.
    await open_and_wait(client, lib_uri, LIB_CALLS)
    # tasks.yml is checked again, then lib.yml said to be clean: two notifications.
    await published(client, lib_uri)
    assert not client.diagnostics[lib_uri] and not client.diagnostics[uri]
    broken = LIB_CALLS.replace("run: 'true'", "rn: 'true'")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=lib_uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=broken)],
        )
    )
    while not (client.diagnostics.get(lib_uri) and client.diagnostics.get(uri)):
        await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert "unknown key 'rn'" in client.diagnostics[lib_uri][0].message
    assert client.diagnostics[uri][0].range.start.line == 2


async def test_completion_in_flow_style_and_not_in_scripts(client, tmp_path):
    uri = project(tmp_path)
    await open_and_wait(client, uri, ROOT)

    assert {"build", "test"} <= set(await complete(client, uri, 11, len("  x: { deps: ["), ROOT + "  x: { deps: [\n"))
    assert "timeout" in await complete(client, uri, 11, len("  x: { ti"), ROOT + "  x: { ti\n")
    # A new line under a task, the cursor where the editor indents it.
    assert "deps" in await complete(client, uri, 13, 4, ROOT + "  x:\n    desc: d\n    \n")
    assert not await complete(client, uri, 13, len("      deps: "), ROOT + "  x:\n    run: |\n      deps: \n")
    assert not await complete(
        client, uri, 0, len("params: { mode: { default: "), ROOT.replace("default: debug", "default: ")
    )


async def test_an_open_include_completes_and_finds_names_as_it_writes_them(client, tmp_path):
    uri = project(tmp_path, root=ROOT_CALLS, lib=LIB_CALLS)
    await open_and_wait(client, uri, ROOT_CALLS)
    lib_uri = (tmp_path / "lib.yml").as_uri()
    await open_and_wait(client, lib_uri, LIB_CALLS)
    await published(client, lib_uri)
    result = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=lib_uri),
            position=types.Position(line=2, character=18),  # check: { deps: [|fmt
        )
    )
    labels = {item.label for item in (result.items if hasattr(result, "items") else result)}
    assert {"fmt", "check", ":build", ":test", ":all"} <= labels and "lib:fmt" not in labels
    definition = await client.text_document_definition_async(
        types.DefinitionParams(
            text_document=types.TextDocumentIdentifier(uri=lib_uri), position=types.Position(line=2, character=26)
        )
    )
    assert definition.uri == uri and definition.range.start == types.Position(line=4, character=2)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=types.TextDocumentIdentifier(uri=lib_uri))
    )
    assert [s.name for s in symbols] == ["fmt", "check"]


EXPRESSIONS = """\
params: { mode: { default: debug, choices: [debug, release], desc: How to build } }
tasks:
  version:
    run: |
      echo "tag=$(git describe --tags)" >> "$RUNNER_OUTPUT"
      { echo "notes<<EOF"; git log -1; echo EOF; } >> "$RUNNER_OUTPUT"
  thumbs:
    image:
      - load: in.png
      - save: out.png
  release:
    deps: [version, thumbs]
    env:
      TAG: ${{ deps.version.outputs.tag }}
    run: echo "$TAG"
"""


async def test_expressions_complete_dependencies_their_outputs_and_params(client, tmp_path):
    uri = project(tmp_path, root=EXPRESSIONS)
    await open_and_wait(client, uri, EXPRESSIONS)
    assert not client.diagnostics[uri]

    def writing(value):
        return EXPRESSIONS.replace("TAG: ${{ deps.version.outputs.tag }}", "TAG: " + value), len("      TAG: " + value)

    text, at = writing("${{ ")
    assert set(await complete(client, uri, 13, at, text)) == {"deps", "params", "runner", "matrix"}
    text, at = writing("${{ deps.")
    assert set(await complete(client, uri, 13, at, text)) == {"version", "thumbs"}
    text, at = writing("${{ deps.version.outputs.")
    assert set(await complete(client, uri, 13, at, text)) == {"tag", "notes"}
    text, at = writing("x-${{ deps.thumbs.outputs.t")
    assert set(await complete(client, uri, 13, at, text)) == {"width", "height", "path"}
    text, at = writing("${{ params.")
    params = await complete(client, uri, 13, at, text)
    assert set(params) == {"mode"} and params["mode"].documentation.value == "How to build"
    text, at = writing("${{ runner.")
    assert {"os", "arch", "root", "args"} <= set(await complete(client, uri, 13, at, text))
    # A closed expression is plain text again.
    text, at = writing("${{ params.mode }} ")
    assert not await complete(client, uri, 13, at, text)


async def test_image_steps_and_their_parameters_complete(client, tmp_path):
    uri = project(tmp_path, root=EXPRESSIONS)
    await open_and_wait(client, uri, EXPRESSIONS)
    steps = await complete(client, uri, 9, len("      - bl"), EXPRESSIONS.replace("      - save: out.png", "      - bl"))
    assert {"blur", "resize", "save", "tilt_shift"} <= set(steps) and "deps" not in steps
    assert steps["blur"].documentation.value == "parameters: sigma; a scalar sets sigma"
    flow = EXPRESSIONS.replace("      - save: out.png", "      - resize: { wi")
    assert set(await complete(client, uri, 9, len("      - resize: { wi"), flow)) == {"width", "height", "scale", "filter"}
    block = EXPRESSIONS.replace("      - save: out.png", "      - sharpen:\n          am")
    assert set(await complete(client, uri, 10, len("          am"), block)) == {"sigma", "amount"}
    # The same list at the key's own indentation.
    level = EXPRESSIONS.replace("      - load: in.png\n      - save: out.png", "    - load: in.png\n    - gr")
    assert "grayscale" in await complete(client, uri, 9, len("    - gr"), level)


async def test_definition_and_hover_of_params_and_of_a_dependency_in_an_expression(client, tmp_path):
    text = EXPRESSIONS.replace("run: echo \"$TAG\"", "run: echo \"$TAG\"\n    dir: out-${{ params.mode }}") + (
        "  ship:\n    deps:\n      - task: version\n        with:\n          mode: release\n"
    )
    uri = project(tmp_path, root=text)
    await open_and_wait(client, uri, text)
    assert not client.diagnostics[uri]

    async def definition(line, character):
        return await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(uri=uri),
                position=types.Position(line=line, character=character),
            )
        )

    # `${{ params.mode }}` in `dir`, and `mode:` in a block-style `with:`: the file's param.
    for line, character in [(15, len("    dir: out-${{ params.mo")), (20, len("          mo"))]:
        found = await definition(line, character)
        assert found.uri == uri and found.range.start == types.Position(line=0, character=10)
    hover = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=20, character=12)
        )
    )
    assert hover.contents.value == "param `mode` (one of debug, release) — How to build"
    # `deps.version.outputs.tag`: the task that writes it.
    found = await definition(13, len("      TAG: ${{ deps.vers"))
    assert found.range.start == types.Position(line=2, character=2)
