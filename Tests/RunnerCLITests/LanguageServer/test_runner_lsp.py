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
    # Both files' diagnostics are published; wait for the include's if it came second.
    if lib_uri not in client.diagnostics:
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

    async def labels(line, character, text=None):
        if text is not None:
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=line + 10),
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

    names = await labels(9, 12, text)
    assert {"build", "test", "lib:fmt"} <= set(names)
    assert names["lib:fmt"].documentation.value == "Format the sources"
    keys = await labels(11, 4, ROOT + "    ti\n")
    assert "timeout" in keys and "deps" in keys and "version" not in keys
    assert "timeout" in keys["timeout"].documentation.value.lower() or keys["timeout"].documentation.value
    calling = ROOT + "  ship:\n    deps: [{ task: build, with: { target: d } }]\n"
    params = await labels(12, 34, calling)
    assert set(params) == {"mode", "target"}
    choices = await labels(12, 43, calling)
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
