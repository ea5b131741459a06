// The fleet table of a big source is diagnosed on a click, and that click holds when the tab
// mounts the view again (its session reloading, a page of rows coming in): the view asks for the
// fleet again instead of showing "Diagnose all" as if nothing had been asked.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen } from "@testing-library/react";

const asked: { cmd: string; args: unknown }[] = [];
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string, args: unknown) => {
    asked.push({ cmd, args });
    return new Promise(() => {});
  },
}));
vi.mock("@tauri-apps/api/event", () => ({ listen: () => Promise.resolve(() => {}) }));

import { FleetView } from "./FleetView";

afterEach(() => {
  cleanup();
  asked.length = 0;
});

const view = (path: string) => <FleetView path={path} count={75} current="s" selectSession={() => {}} />;
const fleets = () => asked.filter((a) => a.cmd === "diagnose_fleet").map((a) => (a.args as { req: { path: string } }).req.path);

describe("FleetView", () => {
  it("keeps a click on Diagnose all across a remount, per source", async () => {
    const first = render(view("/big"));
    expect(fleets(), "a source of 75 sessions waits for the click").toEqual([]);
    fireEvent.click(screen.getByTestId("fleet-run"));
    await vi.waitFor(() => expect(fleets()).toEqual(["/big"]));
    first.unmount();
    render(view("/big"));
    expect(screen.queryByTestId("fleet-run"), "mounted again, the view does not ask for a second click").toBeNull();
    await vi.waitFor(() => expect(fleets(), "and asks for the fleet again").toEqual(["/big", "/big"]));
    cleanup();
    render(view("/other"));
    expect(screen.getByTestId("fleet-run").textContent, "another big source still waits for its own click").toBe("Diagnose all 75 sessions");
  });
});
