// The report's suggested file name: a session name (untrusted text) becomes safe characters.
import { describe, expect, it } from "vitest";
import { reportFileName } from "./exportReport";

describe("reportFileName", () => {
  it("keeps safe characters and ends in .html", () => {
    expect(reportFileName("Fix the checkout: total/discount"), "spaces, colons and slashes become dashes").toBe("Fix-the-checkout-total-discount-report.html");
    expect(reportFileName("<script>alert(1)</script>"), "markup leaves no angle bracket").toBe("script-alert-1-script-report.html");
    expect(reportFileName("///"), "nothing safe left: a plain name").toBe("session-report.html");
  });
});
