// The JSON Schema a built-in tool's model sees, without what zod's conversion adds and the
// model does not need: every optional field as `anyOf [T, null]` (an optional field is one
// left out of `required`; a null the model sends is still accepted: docs/tools.md), integer bounds
// of ±2^53 and `exclusiveMinimum: 0` on ids, `minLength: 1`. The zod schema still checks each
// call and its error names the field (definition.ts), so no rule is lost; the schema is only
// shorter on every request (docs/tools.md, "What the model is sent").

type Schema = Record<string, unknown>;

const isNull = (s: unknown): boolean => !!s && typeof s === 'object' && (s as Schema).type === 'null';

/** `s` with the null alternatives, the default bounds and the one-character minimum left out. */
export function leanSchema(s: Schema): Schema {
  let out: Schema = { ...s };
  if (Array.isArray(out.anyOf)) {
    const rest = (out.anyOf as Schema[]).filter((x) => !isNull(x));
    const { anyOf: _null, ...others } = out;
    out = rest.length === 1 ? { ...others, ...rest[0] } : { ...others, anyOf: rest };
  }
  if (Array.isArray(out.type)) {
    const types = (out.type as string[]).filter((t) => t !== 'null');
    out.type = types.length === 1 ? types[0] : types;
  }
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  if (out.minimum === Number.MIN_SAFE_INTEGER) delete out.minimum;
  if (out.exclusiveMinimum === 0 && out.type === 'integer') delete out.exclusiveMinimum;
  if (out.minLength === 1) delete out.minLength;
  if (out.properties && typeof out.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(out.properties as Record<string, Schema>).map(([k, v]) => [k, leanSchema(v)]));
  }
  if (out.items && typeof out.items === 'object' && !Array.isArray(out.items)) out.items = leanSchema(out.items as Schema);
  if (Array.isArray(out.anyOf)) out.anyOf = (out.anyOf as Schema[]).map(leanSchema);
  return out;
}
