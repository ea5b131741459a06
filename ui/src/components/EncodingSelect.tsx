// The toolbar's token encoding: the session model's (default), o200k_base or cl100k_base.
import type { Encoding } from "../bindings/Encoding";
import { useEncoding } from "../tasks";

export function EncodingSelect() {
  const [encoding, setEncoding] = useEncoding();
  return (
    <label className="encoding" title="The BPE vocabulary the Tokens tab counts with">
      <span className="muted small">tokens</span>{" "}
      <select value={encoding ?? ""} onChange={(e) => setEncoding(e.target.value === "" ? null : (e.target.value as Encoding))} data-testid="encoding">
        <option value="">model's encoding</option>
        <option value="o200k_base">o200k_base</option>
        <option value="cl100k_base">cl100k_base</option>
      </select>
    </label>
  );
}
