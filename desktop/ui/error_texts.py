"""Translated titles of every error kind (desktop.core.errors.ERROR_KINDS).

Written out literally so that ``pyside6-lupdate`` finds each text; a test checks that every kind
of the registry has its line here.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def kind_titles() -> dict[str, str]:
    """Kind -> title in the UI language."""
    return {
        "error": QCoreApplication.translate("ErrorKinds", "Something went wrong"),
        "usage": QCoreApplication.translate("ErrorKinds", "Options that do not fit together"),
        "cancelled": QCoreApplication.translate("ErrorKinds", "Stopped"),
        "settings": QCoreApplication.translate("ErrorKinds", "Settings cannot be saved"),
        "store": QCoreApplication.translate("ErrorKinds", "The database cannot be used"),
        "hardware": QCoreApplication.translate("ErrorKinds", "Hardware profile problem"),
        "demo.missing": QCoreApplication.translate("ErrorKinds", "Demo model missing"),
        "gguf": QCoreApplication.translate("ErrorKinds", "The model file cannot be read"),
        "gguf.file": QCoreApplication.translate("ErrorKinds", "The model file cannot be opened"),
        "gguf.missing": QCoreApplication.translate("ErrorKinds", "The model file is missing"),
        "gguf.truncated": QCoreApplication.translate("ErrorKinds", "The model file is incomplete"),
        "gguf.format": QCoreApplication.translate(
            "ErrorKinds", "The file is not a valid GGUF model"
        ),
        "gguf.version": QCoreApplication.translate("ErrorKinds", "Unsupported GGUF version"),
        "gguf.not_a_model": QCoreApplication.translate(
            "ErrorKinds", "The GGUF file holds no model"
        ),
        "gguf.split": QCoreApplication.translate("ErrorKinds", "A part of a split model is wrong"),
        "gguf.split_missing": QCoreApplication.translate(
            "ErrorKinds", "A part of a split model is missing"
        ),
        "gguf.split_part": QCoreApplication.translate(
            "ErrorKinds", "This is not the first part of a split model"
        ),
        "gguf.remote": QCoreApplication.translate(
            "ErrorKinds", "The remote model file cannot be read"
        ),
        "gguf.remote.bad_name": QCoreApplication.translate(
            "ErrorKinds", "Not a valid model address"
        ),
        "gguf.remote.connection": QCoreApplication.translate(
            "ErrorKinds", "No connection to the server"
        ),
        "gguf.remote.timeout": QCoreApplication.translate(
            "ErrorKinds", "The server did not answer in time"
        ),
        "catalog": QCoreApplication.translate("ErrorKinds", "Catalog problem"),
        "catalog.invalid": QCoreApplication.translate(
            "ErrorKinds", "The catalog file is not valid"
        ),
        "catalog.json": QCoreApplication.translate(
            "ErrorKinds", "The catalog file is not valid JSON"
        ),
        "catalog.missing": QCoreApplication.translate("ErrorKinds", "The catalog file is missing"),
        "catalog.unreadable": QCoreApplication.translate(
            "ErrorKinds", "The catalog file cannot be read"
        ),
        "catalog.write": QCoreApplication.translate("ErrorKinds", "The catalog cannot be saved"),
        "catalog.offline": QCoreApplication.translate(
            "ErrorKinds", "Offline: the catalog cannot be refreshed"
        ),
        "catalog.unreachable": QCoreApplication.translate(
            "ErrorKinds", "The Hub cannot be reached"
        ),
        "catalog.unknown_model": QCoreApplication.translate(
            "ErrorKinds", "No such model in the catalog"
        ),
        "catalog.unknown_variant": QCoreApplication.translate(
            "ErrorKinds", "No such variant in the catalog"
        ),
        "fit": QCoreApplication.translate("ErrorKinds", "The estimate is not possible"),
        "hub": QCoreApplication.translate("ErrorKinds", "Hugging Face Hub problem"),
        "hub.bad_endpoint": QCoreApplication.translate("ErrorKinds", "Not a Hub address"),
        "hub.bad_name": QCoreApplication.translate(
            "ErrorKinds", "Not a valid repository or file name"
        ),
        "download": QCoreApplication.translate("ErrorKinds", "Download failed"),
        "download.busy": QCoreApplication.translate("ErrorKinds", "Already being downloaded"),
        "download.cancelled": QCoreApplication.translate("ErrorKinds", "Download cancelled"),
        "download.disk_full": QCoreApplication.translate("ErrorKinds", "Not enough disk space"),
        "download.gated": QCoreApplication.translate(
            "ErrorKinds", "Licence acceptance or token needed"
        ),
        "download.network": QCoreApplication.translate("ErrorKinds", "Network error"),
        "download.not_a_folder": QCoreApplication.translate(
            "ErrorKinds", "A file where a folder should be"
        ),
        "download.not_found": QCoreApplication.translate("ErrorKinds", "Not found on the Hub"),
        "download.offline": QCoreApplication.translate("ErrorKinds", "Offline"),
        "download.unsafe_name": QCoreApplication.translate(
            "ErrorKinds", "Unsafe file name refused"
        ),
        "download.verify_failed": QCoreApplication.translate("ErrorKinds", "Checksum mismatch"),
        "library": QCoreApplication.translate("ErrorKinds", "Library problem"),
        "library.copy_failed": QCoreApplication.translate(
            "ErrorKinds", "The file cannot be copied"
        ),
        "library.exists": QCoreApplication.translate(
            "ErrorKinds", "A different file with that name exists"
        ),
        "library.is_dir": QCoreApplication.translate("ErrorKinds", "A folder, not a file"),
        "library.layout": QCoreApplication.translate("ErrorKinds", "Unexpected folder layout"),
        "library.missing": QCoreApplication.translate("ErrorKinds", "The file is missing"),
        "library.newer": QCoreApplication.translate(
            "ErrorKinds", "The library was written by a newer version"
        ),
        "library.damaged": QCoreApplication.translate(
            "ErrorKinds", "The library database is damaged"
        ),
        "library.busy": QCoreApplication.translate("ErrorKinds", "The library database is busy"),
        "library.model_not_found": QCoreApplication.translate("ErrorKinds", "Model not found"),
        "library.no_models_dir": QCoreApplication.translate("ErrorKinds", "No models folder"),
        "library.not_found": QCoreApplication.translate("ErrorKinds", "No such file"),
        "library.split_incomplete": QCoreApplication.translate(
            "ErrorKinds", "A split model is incomplete"
        ),
        "library.split_part": QCoreApplication.translate(
            "ErrorKinds", "Not the first part of a split model"
        ),
        "library.unknown": QCoreApplication.translate("ErrorKinds", "Not in the library"),
        "library.unreadable": QCoreApplication.translate("ErrorKinds", "The file cannot be read"),
        "library.unsupported_format": QCoreApplication.translate("ErrorKinds", "Not a GGUF model"),
        "compare": QCoreApplication.translate("ErrorKinds", "Comparison problem"),
        "compare.contestants": QCoreApplication.translate(
            "ErrorKinds", "A comparison takes two to six models"
        ),
        "compare.option": QCoreApplication.translate(
            "ErrorKinds", "A comparison setting cannot be used"
        ),
        "compare.no_room": QCoreApplication.translate(
            "ErrorKinds", "Not enough memory to run the models together"
        ),
        "compare.suite": QCoreApplication.translate(
            "ErrorKinds", "The prompt suite cannot be used"
        ),
        "compare.suite_not_found": QCoreApplication.translate("ErrorKinds", "No such prompt suite"),
        "history": QCoreApplication.translate("ErrorKinds", "The history cannot be used"),
        "history.newer": QCoreApplication.translate(
            "ErrorKinds", "The history was written by a newer version"
        ),
        "history.not_found": QCoreApplication.translate("ErrorKinds", "Not in the history"),
        "history.damaged": QCoreApplication.translate(
            "ErrorKinds", "The history database is damaged"
        ),
        "history.busy": QCoreApplication.translate("ErrorKinds", "The history database is busy"),
        "bundle": QCoreApplication.translate("ErrorKinds", "The results file cannot be used"),
        "bundle.damaged": QCoreApplication.translate("ErrorKinds", "The results file is damaged"),
        "bundle.foreign": QCoreApplication.translate("ErrorKinds", "Wrong kind of file"),
        "bundle.newer": QCoreApplication.translate(
            "ErrorKinds", "The results file was written by a newer version"
        ),
        "engine": QCoreApplication.translate("ErrorKinds", "Engine problem"),
        "engine.template": QCoreApplication.translate("ErrorKinds", "Chat template problem"),
        "engine.not_found": QCoreApplication.translate(
            "ErrorKinds", "The model file does not exist"
        ),
        "engine.not_a_file": QCoreApplication.translate("ErrorKinds", "Not a model file"),
        "engine.not_gguf": QCoreApplication.translate("ErrorKinds", "Not a GGUF file"),
        "engine.truncated": QCoreApplication.translate(
            "ErrorKinds", "The model file is incomplete"
        ),
        "engine.unknown_architecture": QCoreApplication.translate(
            "ErrorKinds", "Architecture not supported by this llama.cpp"
        ),
        "engine.out_of_memory": QCoreApplication.translate("ErrorKinds", "Not enough memory"),
        "engine.load_failed": QCoreApplication.translate(
            "ErrorKinds", "The model could not be loaded"
        ),
        "engine.not_loaded": QCoreApplication.translate("ErrorKinds", "No model loaded"),
        "engine.busy": QCoreApplication.translate("ErrorKinds", "The engine is busy"),
        "engine.context_overflow": QCoreApplication.translate(
            "ErrorKinds", "The conversation is longer than the context"
        ),
        "engine.invalid_request": QCoreApplication.translate(
            "ErrorKinds", "The request cannot be run"
        ),
        "engine.generation_failed": QCoreApplication.translate("ErrorKinds", "Generation failed"),
        "engine.cancelled": QCoreApplication.translate("ErrorKinds", "Loading cancelled"),
        "engine.protocol": QCoreApplication.translate(
            "ErrorKinds", "The engine sent something unexpected"
        ),
        "engine.crashed": QCoreApplication.translate("ErrorKinds", "The engine stopped"),
        "engine.spawn_failed": QCoreApplication.translate(
            "ErrorKinds", "The engine could not be started"
        ),
        "engine.timeout": QCoreApplication.translate(
            "ErrorKinds", "The engine did not answer in time"
        ),
        "engine.engine_missing": QCoreApplication.translate(
            "ErrorKinds", "llama-cpp-python is missing"
        ),
        "engine.refused": QCoreApplication.translate("ErrorKinds", "The server cannot be reached"),
        "engine.unauthorized": QCoreApplication.translate(
            "ErrorKinds", "The server refused the API key"
        ),
        "engine.endpoint_not_found": QCoreApplication.translate(
            "ErrorKinds", "Not an OpenAI-compatible address"
        ),
        "engine.model_not_found": QCoreApplication.translate(
            "ErrorKinds", "The server does not serve that model"
        ),
        "engine.server_error": QCoreApplication.translate(
            "ErrorKinds", "The server reported an error"
        ),
        "engine.malformed": QCoreApplication.translate(
            "ErrorKinds", "The server sent a malformed stream"
        ),
        "engine.disconnected": QCoreApplication.translate(
            "ErrorKinds", "The server closed the connection mid-answer"
        ),
        "engine.remote_usage": QCoreApplication.translate(
            "ErrorKinds", "Remote model settings cannot be used"
        ),
        "engine.quantize_failed": QCoreApplication.translate(
            "ErrorKinds", "llama.cpp could not quantize the file"
        ),
        "quality": QCoreApplication.translate(
            "ErrorKinds", "The quality measurement is not possible"
        ),
        "quality.text": QCoreApplication.translate(
            "ErrorKinds", "The evaluation text cannot be used"
        ),
        "quality.vocab_mismatch": QCoreApplication.translate(
            "ErrorKinds", "The reference has another vocabulary"
        ),
        "quality.pack": QCoreApplication.translate(
            "ErrorKinds", "The reference pack cannot be read"
        ),
        "quality.pack_tokenizer": QCoreApplication.translate(
            "ErrorKinds", "The reference pack is for another tokenizer"
        ),
        "quality.items": QCoreApplication.translate(
            "ErrorKinds", "The question files cannot be read"
        ),
        "quality.quantize_type": QCoreApplication.translate(
            "ErrorKinds", "Not a quantization type llama.cpp makes here"
        ),
        "quality.output": QCoreApplication.translate(
            "ErrorKinds", "The quantized file cannot be written"
        ),
    }
