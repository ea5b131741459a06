#!/usr/bin/env python3
"""End-to-end tests of the real app in a real webview (WebKitWebDriver via tauri-driver).

Run under a display (make e2e wraps it in xvfb-run):

    python3 tests/e2e/run.py --app target/debug/palimpsest-app --fixtures fixtures

Starts tauri-driver on free ports, launches the app with the fixtures folder as its path
argument, runs every test against the one window, saves screenshots to tests/e2e/out/, prints
one line per test and a final `N passed, N failed`; exits 1 when any test failed.
"""

import argparse
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HERE, SESSIONS, Ctx, reopen_main_app, root_shot, start_driver, stop_driver  # noqa: E402
from big import test_a_200_mb_session_never_blocks_the_window  # noqa: E402
from compare import test_two_recorded_runs_side_by_side  # noqa: E402
from cuts import (  # noqa: E402
    test_an_inspector_link_opens_the_subagent_run, test_goose_compacted_cut_view_shows_dropped_summary_kept,
    test_six_cuts_agent_view_names_the_cut_that_produced_it, test_unanswered_call_finding_badge_and_request_context,
)
from fleet import (  # noqa: E402
    test_a_cold_fleet_counts_its_progress_and_cancels, test_a_real_transcript_past_the_first_screen_comes_in_whole,
    test_a_session_reopens_from_the_index, test_ctrl_k_search_opens_the_message, test_fleet_table_sorts_and_fits,
)
from harnesses import (  # noqa: E402
    test_a_copilot_cli_session_shows_its_background_compaction_and_sub_agent,
    test_a_gemini_cli_recording_shows_its_compression_and_rewind,
    test_a_qwen_code_recording_shows_its_compressions_and_rewind,
    test_an_aider_chat_log_shows_its_summary_and_clear,
    test_an_opencode_session_shows_its_cuts_and_the_tail_it_kept,
)
from home import test_an_empty_home_offers_the_bundled_examples, test_without_a_path_it_lists_every_agent_folder_in_home  # noqa: E402
from alerts import test_alerts_reach_the_window_and_the_desktop_and_open_their_message  # noqa: E402
from live import test_live_writer_rows_appear_once_in_order  # noqa: E402
from postmortem import (  # noqa: E402
    test_postmortem_verdict_equals_cli, test_spills_coworker_lists_files_and_flags_the_missing_one,
    test_spills_trust_the_recorded_working_directory_only_on_a_click,
)
from reading import (  # noqa: E402
    test_a_claude_overflow_spill_is_listed_and_opens, test_an_edit_shows_as_a_diff_and_copies_as_markdown,
)
from renderer import test_a_crashed_renderer_is_reloaded, test_without_a_gpu_the_renderer_paints_on_the_cpu  # noqa: E402
from report import test_a_report_shows_hostile_text_as_text_in_chromium  # noqa: E402
from sweep import test_the_replay_sweep_of_a_real_transcript_keeps_and_reads_its_digests  # noqa: E402
from tabs import (  # noqa: E402
    test_replay_seed_five_k3_and_naive_orphan, test_replay_shows_what_the_setting_would_cost, test_tokens_total_equals_cli,
)
from tune import test_tune_the_fixture_fleet_and_open_a_spared_reread  # noqa: E402
from timeline import (  # noqa: E402
    test_fixture_sessions_are_listed, test_goose_compacted_agent_view_is_summary_continuation_preserved,
    test_hostile_html_shows_as_text_and_nothing_executes, test_inspector_shows_whole_message_and_raw_json,
    test_keyboard_moves_switches_views_and_lists_keys, test_seed_five_agent_view_shows_5_visible_rows,
)
from views import (  # noqa: E402
    test_a_goose_delegation_links_its_child_session, test_replacements_and_collapses_are_cuts_with_their_own_views,
)

# The tests live beside this file, one module per part of the window; this is their order.
TESTS = [
    test_fixture_sessions_are_listed,
    test_ctrl_k_search_opens_the_message,
    test_fleet_table_sorts_and_fits,
    test_a_session_reopens_from_the_index,
    test_a_real_transcript_past_the_first_screen_comes_in_whole,
    test_postmortem_verdict_equals_cli,
    test_spills_coworker_lists_files_and_flags_the_missing_one,
    test_spills_trust_the_recorded_working_directory_only_on_a_click,
    test_live_writer_rows_appear_once_in_order,
    test_alerts_reach_the_window_and_the_desktop_and_open_their_message,
    test_seed_five_agent_view_shows_5_visible_rows,
    test_goose_compacted_agent_view_is_summary_continuation_preserved,
    test_hostile_html_shows_as_text_and_nothing_executes,
    test_inspector_shows_whole_message_and_raw_json,
    test_keyboard_moves_switches_views_and_lists_keys,
    test_replay_seed_five_k3_and_naive_orphan,
    test_tokens_total_equals_cli,
    test_goose_compacted_cut_view_shows_dropped_summary_kept,
    test_six_cuts_agent_view_names_the_cut_that_produced_it,
    test_an_inspector_link_opens_the_subagent_run,
    test_an_edit_shows_as_a_diff_and_copies_as_markdown,
    test_a_claude_overflow_spill_is_listed_and_opens,
    test_replacements_and_collapses_are_cuts_with_their_own_views,
    test_a_goose_delegation_links_its_child_session,
    test_an_opencode_session_shows_its_cuts_and_the_tail_it_kept,
    test_a_copilot_cli_session_shows_its_background_compaction_and_sub_agent,
    test_a_gemini_cli_recording_shows_its_compression_and_rewind,
    test_a_qwen_code_recording_shows_its_compressions_and_rewind,
    test_an_aider_chat_log_shows_its_summary_and_clear,
    test_a_report_shows_hostile_text_as_text_in_chromium,
    test_replay_shows_what_the_setting_would_cost,
    test_the_replay_sweep_of_a_real_transcript_keeps_and_reads_its_digests,
    test_tune_the_fixture_fleet_and_open_a_spared_reread,
    test_unanswered_call_finding_badge_and_request_context,
    test_two_recorded_runs_side_by_side,
    test_a_cold_fleet_counts_its_progress_and_cancels,
    test_a_200_mb_session_never_blocks_the_window,
    test_without_a_path_it_lists_every_agent_folder_in_home,
    test_an_empty_home_offers_the_bundled_examples,
    test_a_crashed_renderer_is_reloaded,
    test_without_a_gpu_the_renderer_paints_on_the_cpu,
]


def logs_since(out, t0):
    """`(name, lines)` of every log in `out` written since `t0` (the app's stderr goes to its
    driver's log), by name."""
    for name in sorted(os.listdir(out)):
        path = os.path.join(out, name)
        if name.endswith(".log") and os.path.getmtime(path) >= t0:
            with open(path, encoding="utf-8", errors="replace") as f:
                yield name, f.read().splitlines()


def renderer_crashed(out, t0):
    """The line in which an app that ran since `t0` said its renderer crashed, if one did."""
    for _, lines in logs_since(out, t0):
        for line in lines:
            if "the window's renderer ended" in line:
                return line.strip()
    return None


def reopen_main(c):
    """The main session again when it ended with its app's renderer: its app ended, a new one
    on the fixtures."""
    try:
        c.d.run("return 1;")
        return
    except Exception:  # noqa: BLE001 - the session is gone: open another
        pass
    try:
        c.d.quit()
    except Exception:  # noqa: BLE001 - nothing left to quit
        pass
    reopen_main_app(c)


def print_logs_since(out, t0, last=20):
    """The end of every log the failed test wrote: a CI run shows why an app or its renderer
    ended, not only that the session did."""
    for name, lines in logs_since(out, t0):
        print(f"  --- the end of {name} ---")
        for line in lines[-last:]:
            print(f"  | {line}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--out", default=os.path.join(HERE, "out"))
    ap.add_argument("--screenshot-dir", help="also write README screenshots here")
    ap.add_argument("--only", help="run only tests whose name contains this, or any of these comma-separated"
                    " words ('screenshot': none)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    app = os.path.abspath(a.app)
    fixtures = os.path.abspath(a.fixtures)
    for p, what in ((app, "app binary"), (fixtures, "fixtures folder")):
        if not os.path.exists(p):
            print(f"e2e: {what} not found: {p}", file=sys.stderr)
            print("0 passed, 1 failed")
            return 1

    # The app's index and token cache go to the run's folder, not the user's ~/.cache.
    env = dict(os.environ, PALIMPSEST_FIXTURES=fixtures, XDG_CACHE_HOME=os.path.join(a.out, "cache"),
               COWORKER_SCRATCH_BASE=os.path.join(fixtures, "coworker", "scratch"))
    d, td, log = start_driver(env, os.path.join(a.out, "tauri-driver.log"))
    # The main driver, its process and log, which `reopen_main_app` may replace.
    c = Ctx(d, a.out, app, fixtures)
    c.env, c.td, c.log = env, td, log
    passed = failed = 0
    try:
        d.wait_ready()
        d.start(app, [fixtures])
        c.screenshot_dir = a.screenshot_dir
        if a.screenshot_dir:
            os.makedirs(a.screenshot_dir, exist_ok=True)
        d.wait(SESSIONS, timeout=30, what="the app to list the fixtures")
        only = [w for w in (a.only or "").split(",") if w]
        tests = [t for t in TESTS if not only or any(w in t.__name__ for w in only)]
        for t in tests:
            for attempt in (1, 2):
                t0 = time.time()
                try:
                    t(c)
                    passed += 1
                    print(f"PASS {t.__name__} ({time.time() - t0:.1f}s)")
                    break
                except Exception as e:  # noqa: BLE001 - every failure is reported, then the next test runs
                    crashed = renderer_crashed(a.out, t0)
                    if attempt == 1 and crashed and not getattr(t, "kills_the_renderer", False):
                        # WebKit's renderer crashed under the test (the app said so and reloaded
                        # it): the session is gone, so the test runs once more, and says so.
                        print(f"RETRY {t.__name__}: {e} ({crashed})")
                        print_logs_since(a.out, t0)
                        reopen_main(c)
                        continue
                    failed += 1
                    print(f"FAIL {t.__name__}: {e}")
                    if not isinstance(e, AssertionError):
                        traceback.print_exc()
                    print_logs_since(a.out, t0)
                    try:
                        c.d.screenshot(os.path.join(a.out, f"fail-{t.__name__}.png"))
                    except Exception:  # noqa: BLE001 - the session may be the one that ended
                        reopen_main(c)
                    break
        # A current picture of the app: the compacted session, agent-visible rows dimmed in All.
        c.open_session("goose-compacted")
        c.set_view("all")
        c.d.click('[data-testid=row][data-index="0"]')
        time.sleep(0.5)
        c.d.screenshot(os.path.join(a.out, "app.png"))
        root_shot(os.path.join(a.out, "screen.png"))
        if a.screenshot_dir:
            os.makedirs(a.screenshot_dir, exist_ok=True)
            root_shot(os.path.join(a.screenshot_dir, "screenshot-timeline.png"))
            c.set_view("agent")
            time.sleep(0.3)
            root_shot(os.path.join(a.screenshot_dir, "screenshot-agent-view.png"))
    except Exception as e:  # noqa: BLE001 - the harness itself failed: count it and say why
        failed += 1
        print(f"FAIL harness: {e}")
        traceback.print_exc()
    finally:
        stop_driver(c.d, c.td, c.log)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
