// The `?` dialog: About names the version and commit the app answers, then every key.
import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";

const asked: string[] = [];
let answer: Promise<unknown> = Promise.resolve({ version: "0.1.0", commit: "0123456789ab" });
vi.mock("@tauri-apps/api/core", () => ({
  invoke: (cmd: string) => {
    asked.push(cmd);
    return answer;
  },
}));

import { KEYS, KeyHelp } from "./KeyHelp";

afterEach(() => {
  cleanup();
  asked.length = 0;
});

describe("KeyHelp", () => {
  it("names the version and commit the app was built from, above the keys", async () => {
    render(<KeyHelp onClose={() => {}} />);
    await waitFor(() => expect(screen.getByTestId("about").textContent).toContain("commit 0123456789ab"));
    expect(asked).toEqual(["about"]);
    expect(screen.getByTestId("about").textContent).toContain("Version 0.1.0, commit 0123456789ab");
    expect(screen.getAllByRole("row")).toHaveLength(KEYS.length);
  });

  it("says the version is unknown when the app cannot say it", async () => {
    answer = Promise.reject(new Error("no such command"));
    render(<KeyHelp onClose={() => {}} />);
    expect(screen.getByTestId("about").textContent, "while the app answers").toContain("Version …");
    await waitFor(() => expect(screen.getByTestId("about").textContent).toContain("Version unknown"));
    expect(asked).toEqual(["about"]);
  });
});
