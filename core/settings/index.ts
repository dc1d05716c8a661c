/** Settings: the service, its token in the container, and the defaults. */
export const SETTINGS_TOKEN = Symbol('encoderd.Settings');
export { SettingsService, type SettingsListener } from './settings-service';
export { defaultSettings, LOG_LEVELS, type Settings } from './schema';
