/** The constructor options every SDK client is built from. */
export interface SdkClientOptions {
  readonly apiKey: string;
  readonly baseURL: string | null;
  readonly maxRetries: number;
  readonly timeout: number;
}
