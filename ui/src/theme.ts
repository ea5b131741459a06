// The system light/dark setting, for the charts core draws (the CSS follows it by itself).
import { useEffect, useState } from "react";
import type { ThemeName } from "./bindings/ThemeName";

const QUERY = "(prefers-color-scheme: dark)";

export function useSystemTheme(): ThemeName {
  const media = typeof window !== "undefined" && window.matchMedia ? window.matchMedia(QUERY) : null;
  const [dark, setDark] = useState(media?.matches ?? false);
  useEffect(() => {
    if (!media) return;
    const on = (e: MediaQueryListEvent) => setDark(e.matches);
    media.addEventListener("change", on);
    return () => media.removeEventListener("change", on);
  }, [media]);
  return dark ? "dark" : "light";
}
