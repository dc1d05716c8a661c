/**
 * A fake GstDeviceProvider, for tests only: no V4L2 hardware can be attached to a test machine. Built only by
 * `node scripts/setup.mjs --test`; needs encoderd.node's init() first. registerFakeCameraProvider() must be called
 * before a DeviceMonitor is created. Errors: NG_ERR_ARG (bad caps, duplicate or unknown path), NG_ERR_STATE (not
 * registered), NG_ERR_INIT.
 */
export declare function registerFakeCameraProvider(): void;
export declare function fakeCameraAdd(path: string, name: string, caps: string): void;
export declare function fakeCameraRemove(path: string): void;
