// The receiver matrix runs a failed case again only when it was starved (test/media/matrix/report.ts): every failing
// receiver decoded nothing and printed no error; or when a UDP port it was given was taken before it bound it.
// Damage, a refusal or any other 5xx is judged on the first run.
import { describe, expect, it } from 'vitest';
import { portTaken, starved, type Outcome } from '../media/matrix/report';

const c = { id: 'x', video: 'av1', source: 'rtsp', output: 'rtsp', extra: 'none' } as unknown as Outcome['case'];
const rx = (ok: boolean, decoded: number, errors: string[] = []) => ({ name: 'r', ok, decoded, keyframes: 0, streams: [], errors });

describe('matrix: a starved case', () => {
  it('is a failure where every failing receiver decoded nothing, without an error line', () => {
    expect(starved({ case: c, result: 'fail', http: 201, receivers: [rx(false, 0), rx(true, 20)], ms: 1 })).toBe(true);
    expect(starved({ case: c, result: 'fail', http: 201, receivers: [rx(false, 0), rx(false, 0)], ms: 1 })).toBe(true);
  });

  it('is not one that decoded frames, printed an error, was refused, answered 5xx or passed', () => {
    expect(starved({ case: c, result: 'fail', http: 201, receivers: [rx(false, 3)], ms: 1 })).toBe(false);
    expect(starved({ case: c, result: 'fail', http: 201, receivers: [rx(false, 0, ['[error] corrupt'])], ms: 1 })).toBe(false);
    expect(starved({ case: c, result: 'fail', http: 201, receivers: [rx(false, 0), rx(false, 5)], ms: 1 })).toBe(false);
    expect(starved({ case: c, result: 'fail', http: 504, ms: 1 })).toBe(false);
    expect(starved({ case: c, result: 'refused', http: 400, ms: 1 })).toBe(false);
    expect(starved({ case: c, result: 'pass', http: 201, receivers: [rx(true, 20)], ms: 1 })).toBe(false);
    expect(starved({ case: c, result: 'fail', http: 201, message: 'created but ready', receivers: [], ms: 1 })).toBe(false);
  });
});

describe('matrix: a case whose UDP port was taken', () => {
  const bind = 'PIPELINE_START_TIMEOUT pipeline did not reach playing: state change to playing failed: Could not get/set settings from/on resource.: Could not get/set settings from/on resource.';
  it('is a start that failed on udpsrc\'s bind', () => {
    expect(portTaken({ case: c, result: 'fail', http: 504, message: bind, ms: 1 })).toBe(true);
  });
  it('is not another start failure, damage, a refusal or a pass', () => {
    expect(portTaken({ case: c, result: 'fail', http: 504, message: 'PIPELINE_START_TIMEOUT pipeline did not reach playing: Internal data stream error.', ms: 1 })).toBe(false);
    expect(portTaken({ case: c, result: 'fail', http: 201, message: bind, receivers: [rx(false, 3)], ms: 1 })).toBe(false);
    expect(portTaken({ case: c, result: 'refused', http: 400, message: bind, ms: 1 })).toBe(false);
    expect(portTaken({ case: c, result: 'pass', http: 201, receivers: [rx(true, 20)], ms: 1 })).toBe(false);
  });
});
