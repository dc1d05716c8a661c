/* Fake V4L2 cameras for tests (see the header). The provider is a singleton per factory, so the cameras live in
 * one process-wide list; a started provider announces each change the way v4l2deviceprovider does. */
#include "fake-camera-provider.h"

G_DEFINE_QUARK(encoderd-fake-camera-error-quark, encoderd_fake_camera_error)

typedef struct {
  gchar *path;
  gchar *name;
  GstCaps *caps;
} FakeCamera;

/* Guards cameras and started_provider. Never held while waiting on a GStreamer lock that start/stop hold. */
static GMutex fake_lock;
static GList *cameras = NULL;
static GstDeviceProvider *started_provider = NULL;
static gboolean registered = FALSE;

static void fake_camera_free(FakeCamera *cam) {
  g_free(cam->path);
  g_free(cam->name);
  gst_caps_unref(cam->caps);
  g_free(cam);
}

static FakeCamera *find_camera(const char *path) {
  for (GList *l = cameras; l; l = l->next)
    if (g_strcmp0(((FakeCamera *) l->data)->path, path) == 0) return l->data;
  return NULL;
}

/* ---- the device ---- */

typedef struct {
  GstDevice parent;
  gchar *path;
} EncoderdFakeCameraDevice;

typedef struct {
  GstDeviceClass parent_class;
} EncoderdFakeCameraDeviceClass;

G_DEFINE_TYPE(EncoderdFakeCameraDevice, encoderd_fake_camera_device, GST_TYPE_DEVICE)

/* A live test source stands in for v4l2src: live like a camera, so pipelines built from the device behave as
 * they would with hardware (no preroll, timestamps from the clock). */
static GstElement *fake_device_create_element(GstDevice *device, const gchar *name) {
  GstElement *src = gst_element_factory_make("videotestsrc", name);
  if (!src) return NULL;
  g_object_set(src, "is-live", TRUE, NULL);
  gst_util_set_object_arg(G_OBJECT(src), "pattern", "ball"); /* motion makes frozen output visible */
  return src;
}

static void fake_device_finalize(GObject *object) {
  g_free(((EncoderdFakeCameraDevice *) object)->path);
  G_OBJECT_CLASS(encoderd_fake_camera_device_parent_class)->finalize(object);
}

static void encoderd_fake_camera_device_class_init(EncoderdFakeCameraDeviceClass *klass) {
  GST_DEVICE_CLASS(klass)->create_element = fake_device_create_element;
  G_OBJECT_CLASS(klass)->finalize = fake_device_finalize;
}

static void encoderd_fake_camera_device_init(EncoderdFakeCameraDevice *self) {}

/* A new floating device with the properties v4l2deviceprovider would give a camera. Call with fake_lock held. */
static GstDevice *fake_device_new(const FakeCamera *cam) {
  GstStructure *props = gst_structure_new("v4l2deviceprovider",
      "device.path", G_TYPE_STRING, cam->path,
      "device.api", G_TYPE_STRING, "v4l2",
      "v4l2.device.driver", G_TYPE_STRING, "fake",
      "v4l2.device.card", G_TYPE_STRING, cam->name, NULL);
  EncoderdFakeCameraDevice *dev = g_object_new(encoderd_fake_camera_device_get_type(),
      "display-name", cam->name, "device-class", "Video/Source", "caps", cam->caps, "properties", props, NULL);
  gst_structure_free(props);
  dev->path = g_strdup(cam->path);
  return GST_DEVICE(dev);
}

/* ---- the provider ---- */

typedef struct {
  GstDeviceProvider parent;
} EncoderdFakeCameraProvider;

typedef struct {
  GstDeviceProviderClass parent_class;
} EncoderdFakeCameraProviderClass;

G_DEFINE_TYPE(EncoderdFakeCameraProvider, encoderd_fake_camera_provider, GST_TYPE_DEVICE_PROVIDER)

static GList *fake_provider_probe(GstDeviceProvider *provider) {
  GList *devices = NULL;
  g_mutex_lock(&fake_lock);
  for (GList *l = cameras; l; l = l->next) devices = g_list_append(devices, fake_device_new(l->data));
  g_mutex_unlock(&fake_lock);
  return devices;
}

/* Like v4l2deviceprovider, starting announces every present camera with device_add. */
static gboolean fake_provider_start(GstDeviceProvider *provider) {
  g_mutex_lock(&fake_lock);
  started_provider = provider;
  for (GList *l = cameras; l; l = l->next) gst_device_provider_device_add(provider, fake_device_new(l->data));
  g_mutex_unlock(&fake_lock);
  return TRUE;
}

static void fake_provider_stop(GstDeviceProvider *provider) {
  g_mutex_lock(&fake_lock);
  started_provider = NULL;
  g_mutex_unlock(&fake_lock);
}

static void encoderd_fake_camera_provider_class_init(EncoderdFakeCameraProviderClass *klass) {
  GstDeviceProviderClass *dp = GST_DEVICE_PROVIDER_CLASS(klass);
  dp->probe = fake_provider_probe;
  dp->start = fake_provider_start;
  dp->stop = fake_provider_stop;
  gst_device_provider_class_set_static_metadata(dp, "encoderd fake camera provider", "Video/Source",
      "Fake V4L2 cameras for tests", "encoderd");
}

static void encoderd_fake_camera_provider_init(EncoderdFakeCameraProvider *self) {}

gboolean encoderd_fake_camera_register(void) {
  g_mutex_lock(&fake_lock);
  if (!registered)
    registered = gst_device_provider_register(NULL, ENCODERD_FAKE_CAMERA_PROVIDER_NAME, GST_RANK_PRIMARY,
                                              encoderd_fake_camera_provider_get_type());
  gboolean ok = registered;
  g_mutex_unlock(&fake_lock);
  return ok;
}

gboolean encoderd_fake_camera_add(const char *path, const char *name, const char *caps_string, GError **error) {
  g_autoptr(GstCaps) caps = gst_caps_from_string(caps_string);
  if (!caps || gst_caps_is_empty(caps)) {
    g_set_error(error, encoderd_fake_camera_error_quark(), ENCODERD_FAKE_CAMERA_ERROR_ARG,
                "bad caps string: %s", caps_string);
    return FALSE;
  }
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&fake_lock);
  if (!registered) {
    g_set_error(error, encoderd_fake_camera_error_quark(), ENCODERD_FAKE_CAMERA_ERROR_STATE,
                "registerFakeCameraProvider() has not been called");
    return FALSE;
  }
  if (find_camera(path)) {
    g_set_error(error, encoderd_fake_camera_error_quark(), ENCODERD_FAKE_CAMERA_ERROR_ARG,
                "a fake camera at %s exists already", path);
    return FALSE;
  }
  FakeCamera *cam = g_new0(FakeCamera, 1);
  cam->path = g_strdup(path);
  cam->name = g_strdup(name);
  cam->caps = g_steal_pointer(&caps);
  cameras = g_list_append(cameras, cam);
  /* A stopped provider only records it: start() and probe() pick it up from the list. */
  if (started_provider) gst_device_provider_device_add(started_provider, fake_device_new(cam));
  return TRUE;
}

gboolean encoderd_fake_camera_remove(const char *path, GError **error) {
  g_autoptr(GMutexLocker) locker = g_mutex_locker_new(&fake_lock);
  FakeCamera *cam = find_camera(path);
  if (!cam) {
    g_set_error(error, encoderd_fake_camera_error_quark(), ENCODERD_FAKE_CAMERA_ERROR_ARG,
                "no fake camera at %s", path);
    return FALSE;
  }
  cameras = g_list_remove(cameras, cam);
  fake_camera_free(cam);
  if (started_provider) {
    GstDevice *found = NULL;
    GST_OBJECT_LOCK(started_provider);
    for (GList *l = started_provider->devices; l && !found; l = l->next) {
      if (G_TYPE_CHECK_INSTANCE_TYPE(l->data, encoderd_fake_camera_device_get_type()) &&
          g_strcmp0(((EncoderdFakeCameraDevice *) l->data)->path, path) == 0)
        found = gst_object_ref(l->data);
    }
    GST_OBJECT_UNLOCK(started_provider);
    if (found) {
      gst_device_provider_device_remove(started_provider, found);
      gst_object_unref(found);
    }
  }
  return TRUE;
}
