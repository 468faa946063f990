/** The constructor options both SDK clients share. */
export interface SdkClientOptions {
  readonly apiKey: string;
  readonly baseURL: string | null;
  readonly maxRetries: number;
  readonly timeout: number;
}
