// Doctor part on `pau-gpu`: which accelerator this worker sees (platform/models/device.ts).
import { detectDevice } from '../../platform/models/device';
import type { DoctorPartResult } from './checkDatabase';

export async function deviceInfo(): Promise<DoctorPartResult> {
  const d = await detectDevice();
  return { part: 'gpu', ok: true, detail: d.description };
}
