/* An in-process GstDeviceProvider of fake V4L2 cameras, for tests only: a test machine cannot attach real
 * V4L2 hardware (no vivid / v4l2loopback in a container), so this stands in for v4l2deviceprovider and lets the
 * real DeviceMonitor code (discovery, conversion, hot-plug events) run unchanged. Pure GStreamer, no N-API. */
#ifndef ENCODERD_FAKE_CAMERA_PROVIDER_H
#define ENCODERD_FAKE_CAMERA_PROVIDER_H
#include <gst/gst.h>

#define ENCODERD_FAKE_CAMERA_PROVIDER_NAME "encoderdfakecameraprovider"

typedef enum {
  ENCODERD_FAKE_CAMERA_ERROR_ARG,       /* bad caps, duplicate or unknown path */
  ENCODERD_FAKE_CAMERA_ERROR_STATE,     /* the provider was not registered */
} EncoderdFakeCameraError;

GQuark encoderd_fake_camera_error_quark(void);

/* Registers the provider factory (rank PRIMARY, class Video/Source) once; later calls do nothing. */
gboolean encoderd_fake_camera_register(void);

/* Adds a fake camera; a started provider announces it with gst_device_provider_device_add. */
gboolean encoderd_fake_camera_add(const char *path, const char *name, const char *caps, GError **error);

/* Removes the fake camera at path; a started provider announces it with gst_device_provider_device_remove. */
gboolean encoderd_fake_camera_remove(const char *path, GError **error);
#endif
