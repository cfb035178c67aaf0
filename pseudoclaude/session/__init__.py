"""Sessions: an append-only JSONL per session, crash-safe replay, one writer at a time.

Typical use (the CLI and the runner)::

    session = create_session(sessions_dir, workspace, model=m, provider=p)
    session, replay = open_session(sessions_dir, workspace, session_id)   # resume
    session.append_message(msg); session.append_usage(usage, context_messages=n)
    session.sync()     # end of every turn
    session.close()    # releases the lock
"""

from pseudoclaude.session.checkpoints import Checkpoint
from pseudoclaude.session.firstprompt import first_prompt
from pseudoclaude.session.errors import (
    SessionError,
    SessionFormatError,
    SessionInUse,
    SessionNotFound,
)
from pseudoclaude.session.export import EXPORT_FORMATS, ExportFormat, default_export_name, export_session, write_export
from pseudoclaude.session.facts import ReadStamp
from pseudoclaude.session.format import FORMAT_VERSION, SessionMeta
from pseudoclaude.session.listing import (
    SessionInfo,
    latest_session_id,
    list_all_sessions,
    list_sessions,
    resolve_session_id,
    session_info,
)
from pseudoclaude.session.naming import (
    is_session_id,
    validate_session_id,
    workspace_key,
)
from pseudoclaude.session.reader import Replacement, Replay, load_replay
from pseudoclaude.session.spill import safe_spill_name, write_spill
from pseudoclaude.session.store import (
    Session,
    create_session,
    fork_session,
    open_session,
    session_folder,
    workspace_folder,
)
from pseudoclaude.session.subrun import Subrun, SubrunRecorder, load_subruns
from pseudoclaude.session.writer import FileOps, WriteFailure

__all__ = [
    "Checkpoint",
    "EXPORT_FORMATS",
    "ExportFormat",
    "default_export_name",
    "export_session",
    "write_export",
    "first_prompt",
    "FORMAT_VERSION",
    "FileOps",
    "ReadStamp",
    "Replacement",
    "Replay",
    "Session",
    "SessionError",
    "SessionFormatError",
    "SessionInUse",
    "SessionInfo",
    "SessionMeta",
    "SessionNotFound",
    "Subrun",
    "SubrunRecorder",
    "WriteFailure",
    "create_session",
    "fork_session",
    "is_session_id",
    "latest_session_id",
    "list_all_sessions",
    "list_sessions",
    "load_replay",
    "load_subruns",
    "open_session",
    "resolve_session_id",
    "safe_spill_name",
    "session_folder",
    "session_info",
    "validate_session_id",
    "workspace_folder",
    "workspace_key",
    "write_spill",
]
