"""How sbpc's commands end: user errors as one line, bugs without a traceback."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

from sbpc.output import OutputError, flush_stdout


def run_and_exit(
    tool: str,
    run: Callable[[], int],
    user_errors: tuple[type[BaseException], ...],
) -> NoReturn:
    """Exit with ``run()``'s status.

    A ``user_errors`` exception, or an output that cannot be written
    (``sbpc.output``), is the user's: ``tool: error: ...``, status 1.
    Any other exception is a bug in sbpc: said so, status 1, and its
    traceback only when ``SBPC_TRACEBACK`` is set.
    """
    try:
        status = run()
        flush_stdout()  # a full disk behind stdout is reported, not ignored
    except (OutputError, *user_errors) as e:
        print(f"{tool}: error: {e}", file=sys.stderr)
        status = 1
    except KeyboardInterrupt:
        status = 130
    except SystemExit:
        raise
    except BaseException as e:  # a bug in sbpc (or a library's BaseException)
        if os.environ.get("SBPC_TRACEBACK"):
            traceback.print_exc()
        print(
            f"{tool}: internal error: {type(e).__name__}: {e}\n"
            "(this is a bug in sbpc; set SBPC_TRACEBACK=1 for the traceback)",
            file=sys.stderr,
        )
        status = 1
    sys.exit(status)
