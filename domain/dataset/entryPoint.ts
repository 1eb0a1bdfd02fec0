// The function a method's code defines: its stored entry point, else the name its signature defines, else
// `f` (CruxEval's convention). Pure code; every place that runs or shows a method asks here.
export function entryPointOf(m: { entryPoint: string | null; signature: string | null }): string {
  return m.entryPoint ?? /def\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(m.signature ?? '')?.[1] ?? 'f';
}
