"""The window a local server runs, asked of the server itself (``llm.probe``), and finding a server on loopback."""

from __future__ import annotations


from pseudoclaude.llm import WindowProbe, find_local_servers, probe_window
from tests.fakes.http import FakeHTTPServer
from tests.fakes.local_servers import FakeLocalServer
from tests.fakes.ports import refusing_port

MODEL = "qwen2.5-coder:7b"


def test_ollama_with_nothing_set_runs_its_default_and_says_how_to_raise_it() -> None:
    with FakeLocalServer("ollama", model=MODEL, window=4096, model_window=32768) as server:
        probe = probe_window(server.url, MODEL)
    assert probe is not None
    assert (probe.tokens, probe.source, probe.server, probe.tools) == (4096, "Ollama's default", "Ollama", True)
    assert probe.notice is not None and "OLLAMA_CONTEXT_LENGTH" in probe.notice and "32,768" in probe.notice


def test_ollama_reads_the_loaded_model_first_then_num_ctx() -> None:
    with FakeLocalServer("ollama", model=MODEL, window=16384, loaded=True, num_ctx_parameter=8192) as server:
        loaded = probe_window(server.url, MODEL)
    with FakeLocalServer("ollama", model=MODEL, num_ctx_parameter=8192) as server:
        configured = probe_window(server.url, MODEL)
    assert loaded is not None and (loaded.tokens, loaded.source) == (16384, "Ollama /api/ps (the loaded model)")
    assert configured is not None and (configured.tokens, configured.source) == (8192, "Ollama /api/show num_ctx")


def test_ollama_never_budgets_beyond_the_models_own_length() -> None:
    with FakeLocalServer("ollama", model=MODEL, window=65536, loaded=True, model_window=32768) as server:
        probe = probe_window(server.url, MODEL)
    assert probe is not None and probe.tokens == 32768 and probe.notice is None


def test_ollama_says_when_a_model_takes_no_tools() -> None:
    with FakeLocalServer("ollama", model=MODEL, tools_capable=False) as server:
        probe = probe_window(server.url, MODEL)
    assert probe is not None and probe.tools is False


def test_llamacpp_vllm_lmstudio_and_litellm_each_say_it_their_way() -> None:
    found: dict[str, WindowProbe | None] = {}
    for kind in ("llamacpp", "vllm", "lmstudio", "litellm"):
        with FakeLocalServer(kind, model="m", window=32768) as server:  # type: ignore[arg-type]
            found[kind] = probe_window(server.url, "m")
    assert {kind: (p.tokens, p.source) if p else None for kind, p in found.items()} == {
        "llamacpp": (32768, "llama.cpp /props n_ctx (per slot)"),
        "vllm": (32768, "vLLM /v1/models max_model_len"),
        "lmstudio": (32768, "LM Studio loaded_context_length"),
        "litellm": (32768, "LiteLLM /model/info max_input_tokens"),
    }


def test_a_server_that_says_nothing_is_no_failure() -> None:
    with FakeHTTPServer(lambda exchange: exchange.send_json(404, {"error": "no"})) as server:
        assert probe_window(server.url + "/v1", "m") is None
    assert probe_window("http://127.0.0.1:9/v1", "m", timeout=0.3) is None


def test_discovery_lists_the_servers_that_answer_and_names_what_it_tried() -> None:
    with refusing_port() as closed, FakeLocalServer("ollama", model=MODEL) as server:
        port = server.url.split(":")[2].split("/")[0]
        servers, tried = find_local_servers({"PSEUDOCLAUDE_LOCAL_PORTS": f"{closed}:LM Studio,{port}:Ollama"})
    assert [(s.name, s.base_url, s.models) for s in servers] == [("Ollama", f"http://127.0.0.1:{port}/v1", (MODEL,))]
    assert tried == f"LM Studio on 127.0.0.1:{closed}, Ollama on 127.0.0.1:{port}"


def test_the_usual_ports_are_the_default() -> None:
    from pseudoclaude.llm.probe import local_ports

    assert local_ports({}) == ((11434, "Ollama"), (1234, "LM Studio"), (8080, "llama.cpp"), (8000, "vLLM"))
