// Drawing a big view in steps: a view whose answer lands whole (a 200 MB session's Post-mortem
// or token report) draws its first part, and each further part only in the frame after the
// last was laid out and painted, so no single frame lays out the whole view. Laid out in one go,
// either view held the window over 100 ms on first visit (the e2e long-task probe measures it).
// What each step draws is the view's.
import { useEffect, useState } from "react";

/**
 * The step a view is at, from 0 (its first part) up to `count`, going up one step per painted
 * frame; back to 0 whenever `answer` changes (another answer is drawn from its first part).
 */
export function useSteps(count: number, answer: unknown): number {
  const [step, setStep] = useState({ answer, at: 0 });
  // Another answer starts again from its first part, in this same render.
  const at = step.answer === answer ? step.at : 0;
  useEffect(() => {
    if (at >= count) return;
    let t = 0;
    // After the next frame (this step painted), in a task of its own.
    const f = requestAnimationFrame(() => {
      t = window.setTimeout(() => setStep((s) => (s.answer === answer ? { answer, at: Math.max(s.at, at + 1) } : { answer, at: 1 })), 0);
    });
    return () => {
      cancelAnimationFrame(f);
      clearTimeout(t);
    };
  }, [at, answer, count]);
  return at;
}
