/** /svc/cameras, /svc/camera, /svc/cameras/events and /svc/audio-devices: thin reads of device discovery. */
import type { FastifyInstance } from 'fastify';
import { cameraRecord, type Devices, type FormatNames } from '../../devices';
import { ApiError, validationError } from '../../errors/catalogue';
import type { PipelineManager } from '../../pipeline/manager';
import { openSse } from '../sse';

const size = {
  type: 'object',
  properties: { width: { type: 'integer' }, height: { type: 'integer' }, framerates: { type: 'array', items: { type: 'string' } } },
} as const;

const camera = {
  type: 'object',
  required: ['device_path', 'device_name', 'driver', 'formats', 'in_use_by'],
  properties: {
    device_path: { type: 'string' },
    device_name: { type: 'string' },
    driver: { type: ['string', 'null'] },
    formats: {
      type: 'array',
      items: { type: 'object', properties: { media: { type: 'string' }, format: { type: ['string', 'null'] }, sizes: { type: 'array', items: size } } },
    },
    in_use_by: { type: ['string', 'null'] },
  },
} as const;

const audioDevices = {
  type: 'object',
  required: ['devices'],
  properties: {
    devices: {
      type: 'array',
      items: {
        type: 'object',
        required: ['device', 'name', 'card_name', 'card', 'subdevice'],
        properties: { device: { type: 'string' }, name: { type: 'string' }, card_name: { type: 'string' }, card: { type: 'integer' }, subdevice: { type: 'integer' } },
      },
    },
  },
} as const;

/** formatNames: the source plugins' names for coded device formats (PluginRegistry.deviceFormatNames). */
export function deviceRoutes(app: FastifyInstance, devices: Devices, manager: PipelineManager, formatNames: FormatNames, keepaliveMs?: number): void {
  app.get('/svc/cameras', { schema: { response: { 200: { type: 'array', items: camera } } } }, async () => {
    const pipelines = manager.list();
    return devices.cameras.list().map((d) => cameraRecord(d, pipelines, formatNames));
  });

  // `path` is checked in the handler, so a missing one is answered with a message naming it.
  app.get('/svc/camera', { schema: { querystring: { type: 'object', properties: { path: { type: 'string' } } }, response: { 200: camera } } }, async (req) => {
    const path = (req.query as Record<string, unknown>).path;
    if (path === undefined || path === '') throw validationError(['path is required']);
    if (typeof path !== 'string') throw validationError(['path must be a string']);
    const device = devices.cameras.get(path);
    if (!device) throw new ApiError('NOT_FOUND', `camera "${path}" not found`);
    return cameraRecord(device, manager.list(), formatNames);
  });

  app.get('/svc/cameras/events', async (req, reply) => {
    const sse = openSse(req, reply, keepaliveMs);
    // Cameras already present are announced as camera_added on connect (as the monitor itself does), so a
    // client needs no separate GET and no race between the two. Subscribing and replaying in the same tick
    // means no change can fall between them.
    const unsubscribe = devices.cameras.subscribe((c) => {
      if (c.type === 'added') sse.send('camera_added', { device_path: c.device.path, device_name: c.device.name });
      else sse.send('camera_removed', { device_path: c.device_path });
    });
    sse.onClose(unsubscribe);
    for (const d of devices.cameras.list()) sse.send('camera_added', { device_path: d.path, device_name: d.name });
  });

  app.get('/svc/audio-devices', { schema: { response: { 200: audioDevices } } }, async () => ({ devices: devices.audio() }));
}
